// A scriptable stand-in for Google's Gemini API that speaks the real wire format: the
// `x-goog-api-key` check, `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` as
// server-sent `data:` chunks of GenerateContentResponse (text, thought parts, functionCall parts
// with thought signatures, finishReason, usageMetadata), `:generateContent`, Google's error bodies
// (`{error: {code, message, status}}`), image answers (fake-image-answers.ts) and the model list, so the gemini connector is tested with
// the official `@google/genai` SDK.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import {
  estimateTokens,
  isRecord,
  listenOnLoopback,
  actOutStreamFault,
  pause,
  sendJson,
  splitIntoPieces,
  watchExchange,
  writeFlushed,
  type Exchange,
  type RecordedRequest,
  type ScriptedModelList,
  readAndRecord,
} from './fake-http.js';
import { ScriptedProvider } from './scripted-provider.js';
import { asksForImage, geminiImageAnswer } from './fake-image-answers.js';

const LISTED_MODELS = ['gemini-2.5-flash', 'gemini-2.5-pro', 'text-embedding-004'] as const;
const TEXT_PIECES = 3;
const API_PREFIX = '/v1beta';

export interface ScriptedFunctionCall {
  name: string;
  args: Record<string, unknown>;
  /** Sent as the part's `thoughtSignature`, which Gemini wants back with the call. */
  thoughtSignature?: string;
}

export interface ScriptedContent {
  text?: string;
  /** Thought summaries, sent as parts with `thought: true` before the text. */
  thoughts?: string[];
  functionCalls?: ScriptedFunctionCall[];
  /** Defaults to STOP (Gemini ends a turn of calls with STOP too). */
  finishReason?: 'STOP' | 'MAX_TOKENS' | 'SAFETY';
  usage?: { promptTokenCount: number; candidatesTokenCount: number };
  delayMs?: number;
  chunkDelayMs?: number;
  /** Answer with this status and Google's error body (503 UNAVAILABLE is an overloaded model). */
  status?: number;
  /** Send this many chunks, then end the stream without a finish reason. */
  endAfterChunks?: number;
  /** Send this many chunks, then nothing until the client gives up. */
  hangAfterChunks?: number;
}

export interface FakeGeminiServer {
  /** e.g. http://127.0.0.1:PORT, the SDK's `httpOptions.baseUrl` (it adds /v1beta). */
  baseUrl: string;
  requests: RecordedRequest[];
  enqueue(...replies: ScriptedContent[]): void;
  setModelList(script: ScriptedModelList): void;
  reset(): void;
  close(): Promise<void>;
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function errorBody(code: number, message?: string): Record<string, unknown> {
  return { error: { code, message: message ?? `${STATUS_NAMES[code] ?? 'UNKNOWN'} (fake)`, status: STATUS_NAMES[code] ?? 'UNKNOWN' } };
}

/** The text of the last user content that has text (function responses do not). */
export function lastUserText(body: unknown): string {
  if (!isRecord(body) || !Array.isArray(body.contents)) return '';
  for (let index = body.contents.length - 1; index >= 0; index -= 1) {
    const content: unknown = body.contents[index];
    if (!isRecord(content) || content.role !== 'user' || !Array.isArray(content.parts)) continue;
    const texts = content.parts.filter((part: unknown) => isRecord(part) && typeof part.text === 'string').map((part: any) => part.text);
    if (texts.length > 0) return texts.join(' ');
  }
  return '';
}

/** The chunks of one scripted answer; the last carries the finish reason and the usage. */
function chunksOf(reply: ScriptedContent, body: Record<string, any>, model: string): Array<Record<string, unknown>> {
  const responseId = randomBytes(8).toString('hex');
  const parts: Array<Record<string, unknown>> = [
    ...(reply.thoughts ?? []).map((text) => ({ text, thought: true })),
    ...splitIntoPieces(reply.text ?? '', TEXT_PIECES).map((text) => ({ text })),
    ...(reply.functionCalls ?? []).map((call) => ({
      functionCall: { name: call.name, args: call.args },
      ...(call.thoughtSignature !== undefined && { thoughtSignature: call.thoughtSignature }),
    })),
  ];
  const promptTokenCount = reply.usage?.promptTokenCount ?? estimateTokens(JSON.stringify(body.contents ?? []));
  const candidatesTokenCount = reply.usage?.candidatesTokenCount ?? estimateTokens(reply.text ?? '') + 1;
  const usageMetadata = { promptTokenCount, candidatesTokenCount, totalTokenCount: promptTokenCount + candidatesTokenCount };
  const chunks = parts.map((part) => ({
    candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }],
    modelVersion: model,
    responseId,
  }));
  const last = {
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: reply.finishReason ?? 'STOP', index: 0 }],
  };
  chunks.push({ ...last, usageMetadata, modelVersion: model, responseId } as (typeof chunks)[number]);
  return chunks;
}

async function streamContent(
  chunks: Array<Record<string, unknown>>,
  reply: ScriptedContent,
  response: http.ServerResponse,
  exchange: Exchange,
) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'x-content-type-options': 'nosniff' });
  response.flushHeaders();
  for (const [index, chunk] of chunks.entries()) {
    if (await actOutStreamFault(reply, { index, response, exchange, malformedLine: 'data: {not json\r\n\r\n' })) return;
    if (index > 0 && !(await pause(reply.chunkDelayMs, exchange.signal))) return;
    await writeFlushed(response, `data: ${JSON.stringify(chunk)}\r\n\r\n`);
  }
  response.end();
}

export async function startFakeGeminiServer(options: { apiKey?: string } = {}): Promise<FakeGeminiServer> {
  const script = new ScriptedProvider<ScriptedContent>();

  async function sendModelList(response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const exchange = watchExchange(response, shutdownSignal, () => undefined);
    if (!(await pause(script.modelList.delayMs, exchange.signal))) return;
    if (script.modelList.status !== undefined) {
      sendJson(response, script.modelList.status, errorBody(script.modelList.status));
      return;
    }
    const ids = script.modelList.models ?? [...LISTED_MODELS];
    const models = ids.map((id) => ({
      name: `models/${id}`,
      displayName: id,
      supportedGenerationMethods: id.includes('embedding') ? ['embedContent'] : ['generateContent', 'countTokens'],
    }));
    sendJson(response, 200, { models });
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const method = request.method ?? 'GET';
    const { url, bodyResult } = await readAndRecord(request, script.requests);
    if (bodyResult.kind === 'aborted') return;
    if (options.apiKey !== undefined && request.headers['x-goog-api-key'] !== options.apiKey) {
      const invalidKey = errorBody(400, 'API key not valid. Please pass a valid API key.') as { error: Record<string, unknown> };
      invalidKey.error.details = [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ];
      sendJson(response, 400, invalidKey);
      return;
    }
    if (method === 'GET' && url.pathname === `${API_PREFIX}/models`) {
      await sendModelList(response, shutdownSignal);
      return;
    }
    const generate = new RegExp(`^${API_PREFIX}/models/([^/:]+):(streamGenerateContent|generateContent)$`).exec(url.pathname);
    if (method !== 'POST' || generate === null) {
      sendJson(response, 404, errorBody(404));
      return;
    }
    if (bodyResult.kind !== 'json' || !isRecord(bodyResult.value) || !Array.isArray(bodyResult.value.contents)) {
      sendJson(response, 400, errorBody(400, 'Invalid JSON payload received.'));
      return;
    }
    const body = bodyResult.value;
    if (asksForImage(body) && script.queue.length === 0) {
      const answer = geminiImageAnswer(lastUserText(body), decodeURIComponent(generate[1]!));
      sendJson(response, answer.status, answer.body);
      return;
    }
    const reply = script.queue.shift() ?? { text: `echo: ${lastUserText(body)}` };
    const exchange = watchExchange(response, shutdownSignal, () => undefined);
    if (!(await pause(reply.delayMs, exchange.signal))) return;
    if (reply.status !== undefined) {
      sendJson(response, reply.status, errorBody(reply.status));
      return;
    }
    const chunks = chunksOf(reply, body, decodeURIComponent(generate[1]!));
    if (generate[2] === 'streamGenerateContent' && url.searchParams.get('alt') === 'sse') {
      await streamContent(chunks, reply, response, exchange);
      return;
    }
    const parts = chunks.flatMap((chunk: any) => chunk.candidates[0].content.parts).filter((part: any) => part.text !== '');
    const last: any = chunks.at(-1);
    sendJson(response, 200, { ...last, candidates: [{ ...last.candidates[0], content: { role: 'model', parts } }] });
  }

  const server = await listenOnLoopback(handle);
  return {
    baseUrl: server.origin,
    requests: script.requests,
    enqueue: script.enqueue,
    setModelList: script.setModelList,
    reset: () => script.reset(),
    close: () => server.close(),
  };
}
