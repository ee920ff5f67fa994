/**
 * Embeds texts for a knowledge base with the model it was created with, reaching the provider
 * through its organization's settings (or the server's defaults), resolved as chat's are (one
 * rule for keys and URLs, provider-resolution.ts), under the embeddings timeout. Every call is
 * counted as a usage row (docs/usage.md): attributed to the person and assistant the call names,
 * with the prompt tokens the provider reported, or, when it reported none, an estimate (a token
 * per four characters) marked `completed:estimated_tokens` so a reader can tell the two apart.
 */
import type { Insertable } from 'kysely';
import { isAppError } from '../errors/app-error.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import { nowTimestamp, type UsageLogsTable } from '../store/schema.js';
import { embedTexts, type EmbeddingConnector } from './embedding-client.js';

export interface EmbeddingChoice {
  connector: EmbeddingConnector;
  model: string;
}

/** The embedding model a knowledge base was created with, if any. */
export function embeddingChoiceOf(knowledgeBase: {
  embedding_connector: EmbeddingConnector | null;
  embedding_model: string | null;
}): EmbeddingChoice | undefined {
  const { embedding_connector: connector, embedding_model: model } = knowledgeBase;
  return connector !== null && model !== null ? { connector, model } : undefined;
}

/** Whom an embedding call is counted to: the request's person and assistant (0 when no assistant asked, as for an upload). */
export interface EmbeddingAttribution {
  userId: number;
  assistantId: number;
  requestId: string | null;
  /** 'test' when the call is part of an assistant's test run (docs/assistant-tests.md). */
  traffic?: 'test' | undefined;
}

export interface EmbeddingCall {
  organizationId: number;
  choice: EmbeddingChoice;
  texts: readonly string[];
  attribution: EmbeddingAttribution;
  signal?: AbortSignal | undefined;
}

export type Embedder = (call: EmbeddingCall) => Promise<Float32Array[]>;

export interface OrganizationEmbedderOptions {
  providersFor: (organizationId: number) => Promise<(connectorName: string) => ProviderSettings>;
  timeoutMilliseconds: number;
  /** Keeps one usage row; a row that cannot be kept must not fail the call (the run-record writer's write, caught). */
  countUsage?: (row: Insertable<UsageLogsTable>) => Promise<void>;
}

/** Characters per token when the provider does not say: the usual rule of thumb for English text. */
const CHARACTERS_PER_TOKEN = 4;

function estimatedTokens(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Math.ceil(text.length / CHARACTERS_PER_TOKEN), 0);
}

interface CountedCall {
  call: EmbeddingCall;
  promptTokens: number;
  started: number;
  outcome: string;
}

function usageRowOf(counted: CountedCall): Insertable<UsageLogsTable> {
  const { call, promptTokens, started, outcome } = counted;
  return {
    created_at: nowTimestamp(),
    organization_id: call.organizationId,
    user_id: call.attribution.userId,
    assistant_id: call.attribution.assistantId,
    connector: call.choice.connector,
    model: call.choice.model,
    prompt_tokens: promptTokens,
    completion_tokens: 0,
    total_tokens: promptTokens,
    duration_ms: Math.round(performance.now() - started),
    outcome,
    request_id: call.attribution.requestId,
    traffic: call.attribution.traffic ?? null,
  };
}

function failureOutcome(call: EmbeddingCall, error: unknown): string {
  if (call.signal?.aborted) return 'cancelled';
  return `failed:${isAppError(error) ? error.code : 'internal_error'}`;
}

export function organizationEmbedder(options: OrganizationEmbedderOptions): Embedder {
  const { providersFor, timeoutMilliseconds, countUsage } = options;
  const count = async (counted: CountedCall) => countUsage?.(usageRowOf(counted)).catch(() => undefined);
  return async (call) => {
    const { organizationId, choice, texts, signal } = call;
    if (texts.length === 0) return [];
    const started = performance.now();
    try {
      const provider = (await providersFor(organizationId))(choice.connector);
      const answer = await embedTexts({ connector: choice.connector, model: choice.model, provider }, texts, {
        timeoutMilliseconds,
        ...(signal !== undefined && { signal }),
      });
      const reported = answer.promptTokens;
      await count({
        call,
        promptTokens: reported ?? estimatedTokens(texts),
        started,
        outcome: reported === undefined ? 'completed:estimated_tokens' : 'completed',
      });
      return answer.vectors;
    } catch (error) {
      // A failed call reported nothing: it is counted as a request of no tokens, so that failures show in the reports.
      await count({ call, promptTokens: 0, started, outcome: failureOutcome(call, error) });
      throw error;
    }
  };
}
