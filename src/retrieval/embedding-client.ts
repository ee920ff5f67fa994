/**
 * Turns texts into embedding vectors through the organization's provider: an OpenAI-compatible
 * `POST /v1/embeddings` (OpenAI, vLLM, LM Studio, Ollama's /v1) or Ollama's native `POST /api/embed`.
 * Failures become AppErrors with our own messages (never the provider's, which can quote keys);
 * every call is bounded by a timeout and follows the caller's abort signal, and goes through the
 * provider's own fetch (the outbound guard's when an organization set the URL).
 */
import { AppError } from '../errors/app-error.js';
import { startDeadline } from '../pipeline/bounds/deadline.js';
import type { EmbeddingConnector } from '../store/schema.js';
import { outboundRefusalIn } from '../pipeline/upstream/outbound-fetch.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import { oversizedAnswerIn } from '../pipeline/upstream/outbound-post.js';
import { oversizedAnswerError, unreachableProviderError, upstreamStatusError } from '../pipeline/upstream/upstream-errors.js';
import { trimCharactersEnd } from '../text-trimming/trim-characters.js';

export type { EmbeddingConnector };
export const EMBEDDING_CONNECTORS: readonly EmbeddingConnector[] = ['openai', 'ollama'];

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface EmbeddingModel {
  connector: EmbeddingConnector;
  model: string;
  provider: ProviderSettings;
}

/** The vectors, one per text in order, and the prompt tokens the provider said it used, when it said. */
export interface EmbeddingAnswer {
  vectors: Float32Array[];
  promptTokens: number | undefined;
}

export interface EmbeddingCallOptions {
  timeoutMilliseconds: number;
  signal?: AbortSignal;
}

function invalidAnswer(problem: string): AppError {
  return new AppError('upstream_error', `The embedding provider gave an unusable answer: ${problem}.`);
}

function vectorOf(value: unknown): Float32Array {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) throw invalidAnswer('a base64 embedding of the wrong length');
    // Copied so the vector owns aligned memory whatever the Buffer's offset.
    return new Float32Array(new Uint8Array(bytes).buffer);
  }
  if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'number' && Number.isFinite(item))) {
    throw invalidAnswer('an embedding that is not a list of numbers');
  }
  return Float32Array.from(value as number[]);
}

/** A count the provider reported, if it is one. */
function reportedCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function trimSlash(url: string): string {
  return trimCharactersEnd(url, '/');
}

/** One JSON request to the provider, under the call's deadline; the signal is the deadline's. */
async function postJson(
  provider: ProviderSettings,
  request: Omit<JsonExchange, 'signal'>,
  options: EmbeddingCallOptions,
): Promise<unknown> {
  const deadline = startDeadline(options.timeoutMilliseconds, options.signal);
  try {
    return await exchangeJson(provider, { ...request, signal: deadline.signal });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason instanceof Error ? options.signal.reason : error;
    if (deadline.expired)
      throw new AppError('upstream_timeout', `The embedding provider did not answer within ${options.timeoutMilliseconds} ms.`);
    throw error;
  } finally {
    deadline.clear();
  }
}

interface JsonExchange {
  url: string;
  body: unknown;
  headers: Record<string, string>;
  signal: AbortSignal;
}

async function exchangeJson(provider: ProviderSettings, exchange: JsonExchange): Promise<unknown> {
  const { url, body, headers, signal } = exchange;
  let response: Response;
  try {
    response = await provider.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    // The caller tells the deadline from the learner leaving.
    if (signal.aborted) throw error;
    throw outboundRefusalIn(error) ?? unreachableProviderError();
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw upstreamStatusError(response.status, { keySent: headers.authorization !== undefined });
  }
  try {
    return await response.json();
  } catch (error) {
    if (oversizedAnswerIn(error)) throw oversizedAnswerError();
    throw invalidAnswer('a body that is not JSON');
  }
}

async function embedWithOpenAi(model: EmbeddingModel, texts: readonly string[], options: EmbeddingCallOptions): Promise<EmbeddingAnswer> {
  const baseUrl = trimSlash(model.provider.baseUrl ?? OPENAI_DEFAULT_BASE_URL);
  const headers: Record<string, string> = model.provider.apiKey === undefined ? {} : { authorization: `Bearer ${model.provider.apiKey}` };
  const answer = (await postJson(
    model.provider,
    { url: `${baseUrl}/embeddings`, body: { model: model.model, input: texts, encoding_format: 'base64' }, headers },
    options,
  )) as { data?: unknown; usage?: { prompt_tokens?: unknown } };
  if (!Array.isArray(answer.data) || answer.data.length !== texts.length)
    throw invalidAnswer('a different number of embeddings than texts');
  const vectors = new Array<Float32Array>(texts.length);
  for (const item of answer.data as Array<{ index?: unknown; embedding?: unknown }>) {
    const index = item.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= texts.length || vectors[index] !== undefined)
      throw invalidAnswer('embeddings with wrong indexes');
    vectors[index] = vectorOf(item.embedding);
  }
  return { vectors, promptTokens: reportedCount(answer.usage?.prompt_tokens) };
}

async function embedWithOllama(model: EmbeddingModel, texts: readonly string[], options: EmbeddingCallOptions): Promise<EmbeddingAnswer> {
  const baseUrl = trimSlash(model.provider.baseUrl ?? 'http://127.0.0.1:11434');
  const answer = (await postJson(
    model.provider,
    { url: `${baseUrl}/api/embed`, body: { model: model.model, input: texts }, headers: {} },
    options,
  )) as {
    embeddings?: unknown;
    prompt_eval_count?: unknown;
  };
  if (!Array.isArray(answer.embeddings) || answer.embeddings.length !== texts.length)
    throw invalidAnswer('a different number of embeddings than texts');
  return { vectors: answer.embeddings.map(vectorOf), promptTokens: reportedCount(answer.prompt_eval_count) };
}

/** One vector per text, in order, all of one dimension, and the prompt tokens the provider reported (OpenAI's usage, Ollama's prompt_eval_count). */
export async function embedTexts(model: EmbeddingModel, texts: readonly string[], options: EmbeddingCallOptions): Promise<EmbeddingAnswer> {
  if (texts.length === 0) return { vectors: [], promptTokens: 0 };
  const answer = model.connector === 'ollama' ? await embedWithOllama(model, texts, options) : await embedWithOpenAi(model, texts, options);
  const dimensions = answer.vectors[0]!.length;
  if (answer.vectors.some((vector) => vector.length !== dimensions)) throw invalidAnswer('embeddings of different dimensions');
  return answer;
}
