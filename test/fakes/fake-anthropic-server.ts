// A scriptable stand-in for Anthropic's Messages API that speaks the real wire format: the key
// check (`x-api-key` or a bearer token), the Messages SSE stream (message_start, content_block_start/delta/stop with
// text_delta, thinking_delta and input_json_delta, message_delta with stop_reason and usage,
// message_stop), `event: error` mid-stream, error bodies with their types (overloaded 529 among
// them) and the paginated model list, so the anthropic connector is tested with the official SDK.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import {
  estimateTokens,
  isRecord,
  listenOnLoopback,
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

const LISTED_MODELS = ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-opus-4-1'] as const;
const TEXT_PIECES = 3;
const ARGUMENT_PIECES = 3;
const MODEL_CREATED_AT = '2025-05-22T00:00:00Z';

export interface ScriptedToolUse {
  id: string;
  name: string;
  /** The input as JSON text, streamed as input_json_delta pieces. */
  input: string;
}

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export interface ScriptedMessage {
  /** The answer's text, streamed in about three text_delta pieces. */
  text?: string;
  /** thinking_delta pieces, in a thinking block before the text. */
  thinking?: string[];
  toolUses?: ScriptedToolUse[];
  /** Defaults to tool_use when there are tool uses, otherwise end_turn. */
  stopReason?: AnthropicStopReason;
  usage?: { input_tokens: number; output_tokens: number };
  delayMs?: number;
  chunkDelayMs?: number;
  /** Answer with this status and an Anthropic error body (529 is `overloaded_error`). */
  status?: number;
  /** Send this many events, then `event: error` with an overloaded_error, and end. */
  errorAfterEvents?: number;
  /** Send this many events, then end the response without message_stop. */
  endAfterEvents?: number;
  /** Send this many events, then nothing until the client gives up. */
  hangAfterEvents?: number;
}

export interface FakeAnthropicServer {
  /** e.g. http://127.0.0.1:PORT, which is what the SDK takes as `baseURL` (it adds /v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  enqueue(...replies: ScriptedMessage[]): void;
  setModelList(script: ScriptedModelList): void;
  reset(): void;
  close(): Promise<void>;
}

export interface FakeAnthropicServerOptions {
  /** When set, requests without this key (`x-api-key` or `Authorization: Bearer`) get 401 `authentication_error`. */
  apiKey?: string;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function errorBody(status: number, message?: string): Record<string, unknown> {
  const type = ERROR_TYPES[status] ?? 'api_error';
  return { type: 'error', error: { type, message: message ?? `${type} (fake)` } };
}

function requestIdHeader(): Record<string, string> {
  return { 'request-id': `req_${randomBytes(12).toString('hex')}` };
}

/** The key a request carried: `x-api-key`, or a bearer token as the SDK sends it since API version 2026-10-21. */
export function keyOf(recorded: RecordedRequest | undefined): string | undefined {
  const header = recorded?.headers['x-api-key'];
  if (typeof header === 'string') return header;
  const authorization = recorded?.headers.authorization;
  return typeof authorization === 'string' && authorization.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
}

/** The text of the last user turn that is text (tool results are not). */
export function lastUserText(body: unknown): string {
  if (!isRecord(body) || !Array.isArray(body.messages)) return '';
  for (let index = body.messages.length - 1; index >= 0; index -= 1) {
    const message: unknown = body.messages[index];
    if (!isRecord(message) || message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (!Array.isArray(message.content)) return '';
    const texts = message.content.filter((block: unknown) => isRecord(block) && block.type === 'text').map((block: any) => block.text);
    if (texts.length > 0) return texts.join(' ');
  }
  return '';
}

/** The whole stream of one scripted message, as Anthropic sends its events in order. */
function streamEvents(reply: ScriptedMessage, body: Record<string, any>): Array<{ event: string; data: Record<string, unknown> }> {
  const id = `msg_${randomBytes(12).toString('hex')}`;
  const inputTokens = reply.usage?.input_tokens ?? estimateTokens(JSON.stringify(body.messages ?? []));
  const outputTokens = reply.usage?.output_tokens ?? estimateTokens(reply.text ?? '') + 1;
  const stopReason = reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn');
  const events: Array<{ event: string; data: Record<string, unknown> }> = [];
  const add = (event: string, data: Record<string, unknown>): void => {
    events.push({ event, data: { type: event, ...data } });
  };
  add('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
  let index = 0;
  if (reply.thinking?.length) {
    add('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const thinking of reply.thinking) add('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
    add('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM-fake-signature' } });
    add('content_block_stop', { index });
    index += 1;
  }
  if (reply.text !== undefined) {
    add('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const text of splitIntoPieces(reply.text, TEXT_PIECES)) add('content_block_delta', { index, delta: { type: 'text_delta', text } });
    add('content_block_stop', { index });
    index += 1;
  }
  for (const use of reply.toolUses ?? []) {
    add('content_block_start', { index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } });
    for (const partial_json of splitIntoPieces(use.input, ARGUMENT_PIECES))
      add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    add('content_block_stop', { index });
    index += 1;
  }
  add('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  add('message_stop', {});
  return events;
}

async function streamMessage(reply: ScriptedMessage, body: Record<string, any>, response: http.ServerResponse, exchange: Exchange) {
  const events = streamEvents(reply, body);
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...requestIdHeader() });
  response.flushHeaders();
  for (const [index, { event, data }] of events.entries()) {
    if (reply.errorAfterEvents !== undefined && index >= reply.errorAfterEvents) {
      response.end(`event: error\ndata: ${JSON.stringify(errorBody(529, 'Overloaded'))}\n\n`);
      return;
    }
    if (reply.endAfterEvents !== undefined && index >= reply.endAfterEvents) {
      response.end();
      return;
    }
    if (reply.hangAfterEvents !== undefined && index >= reply.hangAfterEvents) {
      await pause(Number.POSITIVE_INFINITY, exchange.signal);
      return;
    }
    if (index > 0 && !(await pause(reply.chunkDelayMs, exchange.signal))) return;
    await writeFlushed(response, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
  response.end();
}

/** A whole Message, for a request without `stream: true`. */
function wholeMessage(reply: ScriptedMessage, body: Record<string, any>): Record<string, unknown> {
  const events = streamEvents(reply, body);
  const start = events[0]!.data.message as Record<string, any>;
  const delta = events.at(-2)!.data as Record<string, any>;
  const content = [
    ...(reply.thinking?.length ? [{ type: 'thinking', thinking: reply.thinking.join(''), signature: 'EqQBCgIYAhIM-fake-signature' }] : []),
    ...(reply.text !== undefined ? [{ type: 'text', text: reply.text }] : []),
    ...(reply.toolUses ?? []).map((use) => ({ type: 'tool_use', id: use.id, name: use.name, input: JSON.parse(use.input) })),
  ];
  return {
    ...start,
    content,
    stop_reason: delta.delta.stop_reason,
    usage: { ...start.usage, output_tokens: delta.usage.output_tokens },
  };
}

export async function startFakeAnthropicServer(options: FakeAnthropicServerOptions = {}): Promise<FakeAnthropicServer> {
  const script = new ScriptedProvider<ScriptedMessage>();

  async function sendModelList(response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const exchange = watchExchange(response, shutdownSignal, () => undefined);
    if (!(await pause(script.modelList.delayMs, exchange.signal))) return;
    if (script.modelList.status !== undefined) {
      sendJson(response, script.modelList.status, errorBody(script.modelList.status), requestIdHeader());
      return;
    }
    if (script.modelList.malformed === true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"data":[{"type":"model","id":"claude-');
      return;
    }
    const ids = script.modelList.models ?? [...LISTED_MODELS];
    const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: MODEL_CREATED_AT }));
    sendJson(response, 200, { data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null }, requestIdHeader());
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const method = request.method ?? 'GET';
    const { url, bodyResult, recorded } = await readAndRecord(request, script.requests);
    const path = url.pathname;
    if (bodyResult.kind === 'aborted') return;
    const route = `${method} ${path}`;
    if (route !== 'POST /v1/messages' && route !== 'GET /v1/models') {
      sendJson(response, 404, errorBody(404), requestIdHeader());
      return;
    }
    if (options.apiKey !== undefined && keyOf(recorded) !== options.apiKey) {
      sendJson(response, 401, errorBody(401, 'invalid x-api-key'), requestIdHeader());
      return;
    }
    if (method === 'GET') return sendModelList(response, shutdownSignal);
    if (bodyResult.kind !== 'json' || !isRecord(bodyResult.value)) {
      sendJson(response, 400, errorBody(400, 'The request body is not valid JSON.'), requestIdHeader());
      return;
    }
    const body = bodyResult.value;
    if (typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) {
      sendJson(response, 400, errorBody(400, 'max_tokens: Field required'), requestIdHeader());
      return;
    }
    const reply = script.queue.shift() ?? { text: `echo: ${lastUserText(body)}` };
    const exchange = watchExchange(response, shutdownSignal, () => undefined);
    if (!(await pause(reply.delayMs, exchange.signal))) return;
    if (reply.status !== undefined) {
      sendJson(response, reply.status, errorBody(reply.status), requestIdHeader());
      return;
    }
    if (body.stream === true) return streamMessage(reply, body, response, exchange);
    sendJson(response, 200, wholeMessage(reply, body), requestIdHeader());
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
