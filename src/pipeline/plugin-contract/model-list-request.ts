/**
 * Asking a provider which models it serves (OpenAI-compatible `GET /models`, Ollama's
 * `GET /api/tags`), for the studio's Model list. A provider that does not answer in time, refuses
 * the key, fails or answers something that is not a model list is reported as a ModelListError
 * with a reason code and never as a list of guesses; the model list service turns the code into
 * plain words. The key travels only in the request's headers and never into an error.
 */
import type { ProviderSettings } from './connector-definition.js';
import { outboundRefusalIn } from '../upstream/outbound-fetch.js';

/** Why a provider gave no list: each code has a sentence in the model list service and the web app. */
export const MODEL_LIST_FAILURES = [
  'no_key',
  'timeout',
  'key_rejected',
  'provider_error',
  'malformed_answer',
  'unreachable',
  'address_refused',
] as const;

export type ModelListFailure = (typeof MODEL_LIST_FAILURES)[number];

export class ModelListError extends Error {
  constructor(
    readonly reason: ModelListFailure,
    /** The provider's HTTP status, when it answered with one. */
    readonly status?: number,
  ) {
    super(`The provider's model list is unavailable (${reason}${status === undefined ? '' : `, HTTP ${status}`}).`);
    this.name = 'ModelListError';
  }
}

export interface ModelListRequest {
  provider: ProviderSettings;
  url: string;
  headers?: Record<string, string>;
  /** Aborted when the model list's time is up. */
  signal: AbortSignal;
  /** The model ids in the provider's answer, or undefined when the answer is not a model list. */
  read: (answer: unknown) => string[] | undefined;
}

function failureOf(error: unknown, signal: AbortSignal): ModelListError {
  if (error instanceof ModelListError) return error;
  if (signal.aborted) return new ModelListError('timeout');
  if (outboundRefusalIn(error) !== undefined) return new ModelListError('address_refused');
  return new ModelListError('unreachable');
}

async function answerOf(request: ModelListRequest): Promise<unknown> {
  const response = await request.provider.fetch(request.url, {
    headers: { accept: 'application/json', ...request.headers },
    signal: request.signal,
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ModelListError(response.status === 401 || response.status === 403 ? 'key_rejected' : 'provider_error', response.status);
  }
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ModelListError('malformed_answer');
  }
}

/** The provider's model ids, sorted and without repeats; a ModelListError when it gives none. */
export async function requestModelList(request: ModelListRequest): Promise<string[]> {
  let answer: unknown;
  try {
    answer = await answerOf(request);
  } catch (error) {
    throw failureOf(error, request.signal);
  }
  const ids = request.read(answer);
  if (ids === undefined) throw new ModelListError('malformed_answer');
  return [...new Set(ids)].sort((first, second) => first.localeCompare(second));
}

/** `{ [field]: [{ [key]: "id" }, …] }`, the shape of both OpenAI's and Ollama's lists; undefined for anything else. */
export function idsInList(answer: unknown, field: string, key: string): string[] | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const entries: unknown = (answer as Record<string, unknown>)[field];
  if (!Array.isArray(entries)) return undefined;
  const ids: string[] = [];
  for (const entry of entries) {
    const id: unknown = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[key] : undefined;
    if (typeof id !== 'string' || id === '') return undefined;
    ids.push(id);
  }
  return ids;
}
