/**
 * The assistant a test run takes (docs/assistant-tests.md, "Runs"): the saved one, or an unsaved
 * draft from the studio laid over it in memory. A draft is checked as a save would check it (the
 * assistant schemas at the edge, then its metadata normalised and checked against the installed
 * plugins), but nothing of it is ever written to the assistant: it lives in the run's snapshot.
 * Also the run's cost estimate, from the snapshot's prompts and the cases' turns.
 */
import { AppError } from '../errors/app-error.js';
import { storableMetadata } from '../assistants/assistant-records.js';
import type { AssistantPatch } from '../assistants/assistant-schemas.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import type { Expectation } from './expectation-schemas.js';

/** The fields of an assistant a draft may change, as the run's snapshot keeps them. */
export interface RunSnapshot {
  name: string;
  system_prompt: string;
  prompt_template: string;
  metadata: string;
  rag_collections: string;
  rag_top_k: number;
}

const IMMUTABLE_FIELDS = ['id', 'owner', 'owner_id', 'organization_id'] as const;

function collectionsOf(value: string | string[]): string {
  const list = Array.isArray(value) ? value : value.split(',');
  return list
    .map((collection) => collection.trim())
    .filter((collection) => collection !== '')
    .join(',');
}

export function snapshotOfRecord(record: AssistantRecord): RunSnapshot {
  const { name, system_prompt, prompt_template, metadata, rag_collections, rag_top_k } = record;
  return { name, system_prompt, prompt_template, metadata, rag_collections, rag_top_k };
}

/** The saved assistant with the draft's fields laid over it; a field that cannot change is refused. */
export function draftSnapshot(record: AssistantRecord, draft: AssistantPatch, registries: Registries): RunSnapshot {
  for (const field of IMMUTABLE_FIELDS)
    if (field in draft) throw new AppError('immutable_field', `The field "draft.${field}" cannot be changed.`, { param: `draft.${field}` });
  const snapshot = snapshotOfRecord(record);
  if (draft.name !== undefined) snapshot.name = draft.name;
  if (draft.system_prompt !== undefined) snapshot.system_prompt = draft.system_prompt;
  if (draft.prompt_template !== undefined) snapshot.prompt_template = draft.prompt_template;
  if (draft.rag_collections !== undefined) snapshot.rag_collections = collectionsOf(draft.rag_collections);
  if (draft.rag_top_k !== undefined) snapshot.rag_top_k = draft.rag_top_k;
  if (draft.metadata !== undefined) snapshot.metadata = JSON.stringify(storableMetadata(draft.metadata, registries));
  return snapshot;
}

/** The record the pipeline runs: the stored row with the snapshot's fields. */
export function recordWithSnapshot(record: AssistantRecord, snapshot: RunSnapshot): AssistantRecord {
  return { ...record, ...snapshot };
}

/** Characters per token, the usual rule of thumb; the estimate is rough on purpose and says so. */
const CHARACTERS_PER_TOKEN = 4;
/** What one answer is assumed to take, in tokens, when nothing says otherwise. */
export const ANSWER_TOKENS_ASSUMED = 300;
/** What one judge call's instructions, passages and verdict are assumed to take. */
export const JUDGE_PROMPT_TOKENS_ASSUMED = 800;
export const JUDGE_ANSWER_TOKENS_ASSUMED = 100;

export interface CaseShape {
  turns: string[];
  expectations: Expectation[];
}

export interface TokenEstimate {
  modelCalls: number;
  judgeCalls: number;
  promptTokens: number;
  completionTokens: number;
  judgePromptTokens: number;
  judgeCompletionTokens: number;
}

/** Each turn sends the prompts, the history so far and the turn, and gets about ANSWER_TOKENS_ASSUMED back; each judged expectation is one judge call. */
export function estimateTokens(snapshot: RunSnapshot, cases: readonly CaseShape[]): TokenEstimate {
  const instructions = Math.ceil((snapshot.system_prompt.length + snapshot.prompt_template.length) / CHARACTERS_PER_TOKEN);
  const estimate: TokenEstimate = {
    modelCalls: 0,
    judgeCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    judgePromptTokens: 0,
    judgeCompletionTokens: 0,
  };
  for (const testCase of cases) {
    let history = 0;
    for (const turn of testCase.turns) {
      const turnTokens = Math.ceil(turn.length / CHARACTERS_PER_TOKEN);
      estimate.modelCalls += 1;
      estimate.promptTokens += instructions + history + turnTokens;
      estimate.completionTokens += ANSWER_TOKENS_ASSUMED;
      history += turnTokens + ANSWER_TOKENS_ASSUMED;
    }
    const judged = testCase.expectations.filter((expectation) => expectation.type === 'judged').length;
    estimate.judgeCalls += judged;
    estimate.judgePromptTokens += judged * (JUDGE_PROMPT_TOKENS_ASSUMED + history);
    estimate.judgeCompletionTokens += judged * JUDGE_ANSWER_TOKENS_ASSUMED;
  }
  return estimate;
}
