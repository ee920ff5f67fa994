/**
 * Adds a kept chat answer to its assistant's insights (docs/assistant-insights.md), inside the
 * transaction that keeps the answer, so insights never count an answer the chat does not have.
 * Only chat answers come here: test runs and `/v1` calls never do, so insights are learners' use
 * alone. The cost is priced as usage prices it (the organization's price, else the default list
 * price) with the assistant's model; learners are kept as user ids, only ever counted.
 */
import type { Kysely } from 'kysely';
import { MERGE_STATUS_TOOL } from '../pipeline/context-tools/context-orchestrator.js';
import { listModelPrices } from '../store/model-prices-repository.js';
import { addInsightsDay, addInsightsItems, type InsightsItemIncrement } from '../store/assistant-insights-repository.js';
import type { Database } from '../store/schema.js';
import { DEFAULT_MODEL_PRICES, priceOf } from '../usage/default-model-prices.js';
import { costInMicroDollars } from '../usage/usage-roll-up.js';
import { answerTimeBucket } from './answer-time-histogram.js';
import { nameWords, questionTerms } from './question-terms.js';

/** The knowledge-base searches, the tools that apply a similarity threshold: a question they found nothing for shows what is missing. */
const RETRIEVAL_TOOLS: ReadonlySet<string> = new Set(['simple_rag', 'search_knowledge_base']);

/** Longest source key and title kept: a source is counted by its document, not by its text. */
const SOURCE_TEXT_MAXIMUM = 200;

/** The parts of a kept answer the roll-up reads: structural, so it needs nothing of the chats area. */
export interface AnswerForInsights {
  steps: readonly { tool: string; state: string }[];
  sources: readonly { title: string; tool?: string; document_id?: string; knowledge_base_id?: string; url?: string }[];
  usage: { prompt_tokens: number; completion_tokens: number } | null;
  /** From the first event to the end; null when it is unknown (an answer rebuilt after its process died). */
  durationMilliseconds: number | null;
}

export interface AnsweredTurn {
  assistantId: number;
  organizationId: number;
  learnerId: number;
  /** The model the assistant answers with, for the price. */
  model: string;
  question: string;
  /** Whether this is the chat's first answer: the chat counts on the day it was first answered. */
  firstAnswerOfChat: boolean;
  answer: AnswerForInsights;
  day: string;
}

export interface AnswerRollUpLimits {
  termsPerQuestionMaximum: number;
}

async function costOf(db: Kysely<Database>, turn: AnsweredTurn): Promise<number> {
  if (turn.answer.usage === null) return 0;
  const own = await listModelPrices(db, [turn.organizationId]);
  const price = priceOf(own, turn.model) ?? priceOf(DEFAULT_MODEL_PRICES, turn.model);
  return costInMicroDollars(price, turn.answer.usage.prompt_tokens, turn.answer.usage.completion_tokens);
}

function sourceItems(answer: AnswerForInsights): InsightsItemIncrement[] {
  const items = new Map<string, InsightsItemIncrement>();
  for (const source of answer.sources) {
    const key = [source.knowledge_base_id ?? '', source.document_id ?? source.url ?? source.title].join(':').slice(0, SOURCE_TEXT_MAXIMUM);
    // An answer that cites one document three times used it once.
    items.set(key, { kind: 'source', item: key, label: source.title.slice(0, SOURCE_TEXT_MAXIMUM), uses: 1 });
  }
  return [...items.values()];
}

async function learnerNameWords(db: Kysely<Database>, learnerId: number): Promise<Set<string>> {
  const learner = await db.selectFrom('users').select(['name', 'email']).where('id', '=', learnerId).executeTakeFirst();
  return learner === undefined ? new Set() : nameWords(learner.name, learner.email);
}

export async function rollUpAnswer(db: Kysely<Database>, turn: AnsweredTurn, limits: AnswerRollUpLimits): Promise<void> {
  const { answer } = turn;
  // Combining several context tools' outputs shows as a step of its own, but it calls no tool.
  const toolSteps = answer.steps.filter((step) => step.tool !== MERGE_STATUS_TOOL);
  const searched = answer.steps.some((step) => RETRIEVAL_TOOLS.has(step.tool));
  const found = answer.sources.some((source) => source.tool !== undefined && RETRIEVAL_TOOLS.has(source.tool));
  await addInsightsDay(db, {
    assistantId: turn.assistantId,
    day: turn.day,
    counters: {
      chats: turn.firstAnswerOfChat ? 1 : 0,
      questions: 1,
      answers: 1,
      prompt_tokens: answer.usage?.prompt_tokens ?? 0,
      completion_tokens: answer.usage?.completion_tokens ?? 0,
      cost_micro_usd: await costOf(db, turn),
      tool_calls: toolSteps.length,
      tool_failures: toolSteps.filter((step) => step.state === 'error').length,
      retrieval_questions: searched ? 1 : 0,
      retrieval_empty: searched && !found ? 1 : 0,
    },
  });
  const terms = questionTerms(turn.question, {
    excluded: await learnerNameWords(db, turn.learnerId),
    maximum: limits.termsPerQuestionMaximum,
  });
  await addInsightsItems(db, { assistantId: turn.assistantId, day: turn.day }, [
    { kind: 'learner', item: String(turn.learnerId), label: null, uses: 1 },
    ...(answer.durationMilliseconds === null
      ? []
      : [{ kind: 'answer_time' as const, item: answerTimeBucket(answer.durationMilliseconds), label: null, uses: 1 }]),
    ...sourceItems(answer),
    ...terms.map((term) => ({ kind: 'topic' as const, item: term, label: null, uses: 1 })),
  ]);
}
