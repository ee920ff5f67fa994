// A scriptable stand-in for an OpenAI-compatible provider (OpenAI, vLLM, DeepSeek...) that speaks the
// real wire format (chat, embeddings, models, and images through fake-image-answers.ts), so Merino's provider code can be tested with the official SDK and no network.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import {
  deterministicEmbedding,
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
import { openAiImageAnswer } from './fake-image-answers.js';

export type { RecordedRequest } from './fake-http.js';

const API_PREFIX = '/v1';
const DEFAULT_TEXT_PIECES = 3;
const ARGUMENT_PIECES = 3;
const DEFAULT_RETRY_AFTER_SECONDS = 1;
const SYSTEM_FINGERPRINT = 'fp_fake_merino';
/** Fixed so `models.list()` output is identical across runs. */
const MODEL_CREATED_SECONDS = 1_715_367_049;
const LISTED_MODELS = ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small'] as const;
const IDENTIFIER_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** JSON text exactly as the model would emit it; streamed in two or more pieces. */
  arguments: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ScriptedReply {
  /** Whole answer; streamed as `chunks` when given, otherwise split into about three pieces. */
  text?: string;
  /** Exact content deltas to stream. */
  chunks?: string[];
  /** `reasoning_content` deltas (as vLLM and DeepSeek send) streamed before the content. */
  reasoning?: string[];
  toolCalls?: ScriptedToolCall[];
  /** Defaults to 'tool_calls' when there are tool calls, otherwise 'stop'. */
  finishReason?: FinishReason;
  /** Defaults to estimates derived from the prompt and answer lengths. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Wait before the response headers. */
  delayMs?: number;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  /** Answer with this HTTP status and an OpenAI error body instead of a completion. */
  status?: number;
  errorMessage?: string;
  /** Sent in `retry-after` with a 429; defaults to 1. */
  retryAfterSeconds?: number;
  /** Stream this many chunks, then destroy the socket without `[DONE]`. Non-stream: headers, then destroy. */
  dropAfterChunks?: number;
  /** Stream this many chunks, then a `data: {not json` event, then end. Non-stream: a truncated JSON body. */
  malformedAfterChunks?: number;
  /**
   * Stream this many chunks, then end the response cleanly: no finish reason, no usage, no `[DONE]`.
   * Non-stream: a whole JSON body whose choice has no finish reason and no usage.
   */
  endAfterChunks?: number;
  /** Stream this many chunks, then send nothing more until the client gives up (or the fake closes). Non-stream: headers, then nothing. */
  hangAfterChunks?: number;
  /** Streamed: the last content delta waits for this, so a test can look while the model has not finished. */
  lastContentReleased?: Promise<void>;
  /** Streamed: called as each content delta has been written, for figures on what the client got when. */
  onContentSent?(content: string): void;
}

export interface FakeOpenAiServer {
  /** e.g. http://127.0.0.1:PORT/v1, which is what the openai SDK takes as `baseURL`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** FIFO, one reply per chat request. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Used when the queue is empty. */
  setResponder(responder: (request: RecordedRequest) => ScriptedReply): void;
  /** How many chat requests the client closed before the response ended. */
  disconnectedRequests(): number;
  /** How `GET /v1/models` answers from now on (models, a wait, an error status, a malformed body). */
  setModelList(script: ScriptedModelList): void;
  /** Clears the queue, the recorded requests, the disconnect count and the model list script, and restores the echo responder. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeOpenAiServerOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401 `invalid_api_key`. */
  apiKey?: string;
  /** Answers embeddings without `usage`, as some OpenAI-compatible servers do. */
  omitEmbeddingUsage?: boolean;
}

interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

type Delta = Record<string, unknown>;

/** A `lastContentReleased` gate and the function that opens it, for a test that looks before the answer ends. */
export function lastContentGate(): { lastContentReleased: Promise<void>; release: () => void } {
  let release = (): void => {};
  const lastContentReleased = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { lastContentReleased, release };
}

/** The results of tool calls a chat request sent the model, in order. */
export function toolResultsIn(recorded: RecordedRequest | undefined): string[] {
  return ((recorded?.body?.messages ?? []) as Array<{ role: string; content: string }>)
    .filter((message) => message.role === 'tool')
    .map((message) => message.content);
}

export function lastUserMessageText(body: unknown): string {
  if (!isRecord(body) || !Array.isArray(body.messages)) return '';
  for (let index = body.messages.length - 1; index >= 0; index -= 1) {
    const message: unknown = body.messages[index];
    if (isRecord(message) && message.role === 'user') return contentText(message.content);
  }
  return '';
}

/** Content is a string or, for multimodal requests, an array of parts of which only text parts count. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

function echoResponder(request: RecordedRequest): ScriptedReply {
  return { text: `echo: ${lastUserMessageText(request.body)}` };
}

function openAiError(message: string, type: string, code: string | null = null, param: string | null = null): OpenAiErrorBody {
  return { error: { message, type, param, code } };
}

function errorTypeForStatus(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function defaultErrorMessage(status: number): string {
  if (status === 429) return 'Rate limit reached for requests. Please try again in 1s.';
  if (status >= 500) return 'The server had an error while processing your request. Sorry about that!';
  return `Request failed with status ${status}.`;
}

function errorCodeForStatus(status: number): string | null {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 401) return 'invalid_api_key';
  return null;
}

function randomIdentifier(length: number): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (byte) => IDENTIFIER_ALPHABET[byte % IDENTIFIER_ALPHABET.length]).join('');
}

/** Shows enough of a wrong key to recognise it without echoing a secret back into logs. */
function maskKey(key: string): string {
  if (key.length <= 8) return '***';
  return `${key.slice(0, 3)}***${key.slice(-4)}`;
}

function replyText(reply: ScriptedReply): string {
  return reply.chunks !== undefined ? reply.chunks.join('') : (reply.text ?? '');
}

function promptText(body: Record<string, any>): string {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  return messages.map((message) => (isRecord(message) ? contentText(message.content) : '')).join('\n');
}

function usageFor(reply: ScriptedReply, body: Record<string, any>): Record<string, unknown> {
  const reasoningText = (reply.reasoning ?? []).join('');
  const reasoningTokens = estimateTokens(reasoningText);
  const promptTokens = reply.usage?.prompt_tokens ?? estimateTokens(promptText(body));
  const completionTokens =
    reply.usage?.completion_tokens ??
    estimateTokens(replyText(reply)) +
      reasoningTokens +
      (reply.toolCalls ?? []).reduce((sum, call) => sum + estimateTokens(call.name + call.arguments), 0);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** The content text a streamed chunk carries, '' for the others. */
function contentOf(chunk: Record<string, unknown>): string {
  const choices = chunk.choices;
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const delta: unknown = isRecord(first) ? first.delta : undefined;
  return isRecord(delta) && typeof delta.content === 'string' ? delta.content : '';
}

function finishReasonFor(reply: ScriptedReply): FinishReason {
  return reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

/**
 * The deltas in the order OpenAI sends them: an opening role delta, reasoning, content, then each
 * tool call as a header (id, type, name, empty arguments) followed by argument fragments that carry
 * only `index`, which is how clients know which call to append to.
 */
function streamDeltas(reply: ScriptedReply): Delta[] {
  const reasoningPieces = reply.reasoning ?? [];
  const contentPieces = reply.chunks ?? splitIntoPieces(reply.text ?? '', DEFAULT_TEXT_PIECES);
  const toolCalls = reply.toolCalls ?? [];
  const deltas: Delta[] = [];

  for (const [index, call] of toolCalls.entries()) {
    const header = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    deltas.push({ tool_calls: [header] });
    for (const piece of splitIntoPieces(call.arguments, ARGUMENT_PIECES)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  const toolDeltas = deltas.splice(0);

  const onlyToolCalls = reasoningPieces.length === 0 && contentPieces.length === 0 && toolDeltas.length > 0;
  if (onlyToolCalls) {
    // OpenAI folds the role into the first tool-call delta and sends a null content alongside it.
    const [first, ...rest] = toolDeltas;
    return [{ role: 'assistant', content: null, refusal: null, ...first }, ...rest];
  }
  deltas.push({ role: 'assistant', content: '', refusal: null });
  for (const piece of reasoningPieces) deltas.push({ reasoning_content: piece });
  for (const piece of contentPieces) deltas.push({ content: piece });
  deltas.push(...toolDeltas);
  return deltas;
}

export async function startFakeOpenAiServer(options: FakeOpenAiServerOptions = {}): Promise<FakeOpenAiServer> {
  const script = new ScriptedProvider<ScriptedReply>();
  let responder: (request: RecordedRequest) => ScriptedReply = echoResponder;
  let disconnectedCount = 0;

  function nextReply(recorded: RecordedRequest): ScriptedReply {
    return script.queue.shift() ?? responder(recorded);
  }

  function authorised(request: http.IncomingMessage, response: http.ServerResponse): boolean {
    if (options.apiKey === undefined) return true;
    const header = request.headers.authorization ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    if (presented === options.apiKey) return true;
    const message =
      presented === ''
        ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
        : `Incorrect API key provided: ${maskKey(presented)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
    sendJson(response, 401, openAiError(message, 'invalid_request_error', 'invalid_api_key'), requestIdHeader());
    return false;
  }

  async function handleChatCompletion(
    body: Record<string, any>,
    recorded: RecordedRequest,
    response: http.ServerResponse,
    shutdownSignal: AbortSignal,
  ): Promise<void> {
    const exchange = watchExchange(response, shutdownSignal, () => {
      disconnectedCount += 1;
    });
    if (typeof body.model !== 'string' || body.model === '') {
      sendJson(response, 400, openAiError('you must provide a model parameter', 'invalid_request_error'), requestIdHeader());
      return;
    }
    if (!Array.isArray(body.messages)) {
      sendJson(
        response,
        400,
        openAiError("Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages'),
        requestIdHeader(),
      );
      return;
    }

    let reply: ScriptedReply;
    try {
      reply = nextReply(recorded);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      sendJson(response, 500, openAiError(`fake responder threw: ${reason}`, 'server_error'), requestIdHeader());
      return;
    }

    if (!(await pause(reply.delayMs, exchange.signal))) return;

    if (reply.status !== undefined) {
      const headers = requestIdHeader();
      if (reply.status === 429) headers['retry-after'] = String(reply.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
      const message = reply.errorMessage ?? defaultErrorMessage(reply.status);
      sendJson(response, reply.status, openAiError(message, errorTypeForStatus(reply.status), errorCodeForStatus(reply.status)), headers);
      return;
    }

    const identity = {
      id: `chatcmpl-${randomIdentifier(29)}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model,
    };
    if (body.stream === true) {
      await streamCompletion(reply, body, identity, response, exchange);
    } else {
      await sendCompletion(reply, body, identity, response, exchange);
    }
  }

  async function sendCompletion(
    reply: ScriptedReply,
    body: Record<string, any>,
    identity: { id: string; created: number; model: string },
    response: http.ServerResponse,
    exchange: Exchange,
  ): Promise<void> {
    const toolCalls = reply.toolCalls ?? [];
    const text = replyText(reply);
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      refusal: null,
      annotations: [],
    };
    if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning.join('');
    if (toolCalls.length > 0) {
      message.tool_calls = toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    const completion = {
      id: identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonFor(reply) }],
      usage: usageFor(reply, body),
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
    };

    if (reply.dropAfterChunks !== undefined || reply.malformedAfterChunks !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json', ...requestIdHeader() });
      if (reply.malformedAfterChunks !== undefined) {
        const whole = JSON.stringify(completion);
        response.end(whole.slice(0, Math.floor(whole.length / 2)));
        return;
      }
      await writeFlushed(response, '');
      exchange.markClosedByServer();
      response.destroy();
      return;
    }
    if (reply.hangAfterChunks !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json', ...requestIdHeader() });
      response.flushHeaders();
      await pause(Number.POSITIVE_INFINITY, exchange.signal);
      return;
    }
    if (reply.endAfterChunks !== undefined) {
      const { usage: _usage, ...cut } = completion;
      const content = streamDeltas(reply)
        .slice(0, reply.endAfterChunks)
        .map((delta) => (typeof delta.content === 'string' ? delta.content : ''))
        .join('');
      sendJson(
        response,
        200,
        { ...cut, choices: [{ index: 0, message: { ...message, content }, logprobs: null, finish_reason: null }] },
        requestIdHeader(),
      );
      return;
    }
    sendJson(response, 200, completion, requestIdHeader());
  }

  async function streamCompletion(
    reply: ScriptedReply,
    body: Record<string, any>,
    identity: { id: string; created: number; model: string },
    response: http.ServerResponse,
    exchange: Exchange,
  ): Promise<void> {
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
    const base = {
      id: identity.id,
      object: 'chat.completion.chunk',
      created: identity.created,
      model: identity.model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
    };
    const chunkFor = (delta: Delta, finishReason: FinishReason | null): Record<string, unknown> => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      // OpenAI sends `usage: null` on every chunk once usage was asked for, and omits it otherwise.
      ...(includeUsage && { usage: null }),
    });
    const events: Record<string, unknown>[] = streamDeltas(reply).map((delta) => chunkFor(delta, null));
    events.push(chunkFor({}, finishReasonFor(reply)));
    if (includeUsage) events.push({ ...base, choices: [], usage: usageFor(reply, body) });

    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...requestIdHeader(),
    });
    response.flushHeaders();

    const lastContentIndex = events.findLastIndex((event) => contentOf(event) !== '');
    for (const [index, event] of events.entries()) {
      if (await actOutStreamFault(reply, { index, response, exchange, malformedLine: 'data: {not json\n\n' })) return;
      if (index > 0 && !(await pause(reply.chunkDelayMs, exchange.signal))) return;
      if (index === lastContentIndex && reply.lastContentReleased !== undefined) await reply.lastContentReleased;
      if (exchange.signal.aborted) return;
      await writeFlushed(response, `data: ${JSON.stringify(event)}\n\n`);
      const content = contentOf(event);
      if (content !== '') reply.onContentSent?.(content);
    }
    if (reply.dropAfterChunks !== undefined) {
      exchange.markClosedByServer();
      response.destroy();
      return;
    }
    if (reply.malformedAfterChunks !== undefined) {
      response.end('data: {not json\n\n');
      return;
    }
    response.end('data: [DONE]\n\n');
  }

  function handleEmbeddings(body: Record<string, any>, response: http.ServerResponse): void {
    const rawInput: unknown = body.input;
    // Token arrays are accepted as well as text; hashing their JSON keeps them deterministic too.
    const isTokenArray = Array.isArray(rawInput) && rawInput.length > 0 && rawInput.every((item) => typeof item === 'number');
    const inputs: unknown[] = Array.isArray(rawInput) && !isTokenArray ? rawInput : [rawInput];
    if (rawInput === undefined || inputs.length === 0) {
      sendJson(
        response,
        400,
        openAiError("Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input'),
        requestIdHeader(),
      );
      return;
    }
    if (typeof body.model !== 'string' || body.model === '') {
      sendJson(response, 400, openAiError('you must provide a model parameter', 'invalid_request_error'), requestIdHeader());
      return;
    }
    const texts = inputs.map((input) => (typeof input === 'string' ? input : JSON.stringify(input)));
    const asBase64 = body.encoding_format === 'base64';
    const data = texts.map((text, index) => {
      const vector = deterministicEmbedding(text);
      const embedding = asBase64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    });
    const promptTokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
    sendJson(
      response,
      200,
      {
        object: 'list',
        data,
        model: body.model,
        ...(options.omitEmbeddingUsage !== true && { usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } }),
      },
      requestIdHeader(),
    );
  }

  function modelEntry(id: string): Record<string, unknown> {
    return { id, object: 'model', created: MODEL_CREATED_SECONDS, owned_by: 'system' };
  }

  /** `GET /v1/models` as OpenAI answers it, or as the script says. */
  async function sendModelList(response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const exchange = watchExchange(response, shutdownSignal, () => undefined);
    if (!(await pause(script.modelList.delayMs, exchange.signal))) return;
    const { status } = script.modelList;
    if (status !== undefined) {
      const code = status === 401 ? 'invalid_api_key' : null;
      sendJson(response, status, openAiError(defaultErrorMessage(status), errorTypeForStatus(status), code), requestIdHeader());
    } else if (script.modelList.malformed === true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"object":"list","data":[{"id":"gpt-');
    } else {
      sendJson(response, 200, { object: 'list', data: (script.modelList.models ?? LISTED_MODELS).map(modelEntry) }, requestIdHeader());
    }
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const method = request.method ?? 'GET';
    const { url, bodyResult, recorded } = await readAndRecord(request, script.requests);
    const path = url.pathname;
    if (bodyResult.kind === 'aborted') return;

    const route = `${method} ${path}`;
    const modelPrefix = `${API_PREFIX}/models/`;
    const known =
      route === `POST ${API_PREFIX}/chat/completions` ||
      route === `POST ${API_PREFIX}/embeddings` ||
      route === `POST ${API_PREFIX}/images/generations` ||
      route === `GET ${API_PREFIX}/models` ||
      (method === 'GET' && path.startsWith(modelPrefix));
    if (!known) {
      sendJson(response, 404, openAiError(`Invalid URL (${method} ${path})`, 'invalid_request_error'), requestIdHeader());
      return;
    }
    if (!authorised(request, response)) return;

    if (method === 'GET') {
      if (path === `${API_PREFIX}/models`) {
        await sendModelList(response, shutdownSignal);
        return;
      }
      const modelId = decodeURIComponent(path.slice(modelPrefix.length));
      if ((LISTED_MODELS as readonly string[]).includes(modelId)) {
        sendJson(response, 200, modelEntry(modelId), requestIdHeader());
      } else {
        const message = `The model '${modelId}' does not exist or you do not have access to it.`;
        sendJson(response, 404, openAiError(message, 'invalid_request_error', 'model_not_found'), requestIdHeader());
      }
      return;
    }

    if (bodyResult.kind === 'too-large') {
      sendJson(response, 413, openAiError('Request body too large.', 'invalid_request_error'), requestIdHeader());
      return;
    }
    if (bodyResult.kind !== 'json' || !isRecord(bodyResult.value)) {
      const message =
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";
      sendJson(response, 400, openAiError(message, 'invalid_request_error'), requestIdHeader());
      return;
    }
    if (path === `${API_PREFIX}/embeddings`) {
      handleEmbeddings(bodyResult.value, response);
      return;
    }
    if (path === `${API_PREFIX}/images/generations`) {
      const answer = openAiImageAnswer(bodyResult.value);
      sendJson(response, answer.status, answer.body, requestIdHeader());
      return;
    }
    await handleChatCompletion(bodyResult.value, recorded, response, shutdownSignal);
  }

  const server = await listenOnLoopback(handle);
  return {
    baseUrl: `${server.origin}${API_PREFIX}`,
    requests: script.requests,
    enqueue: script.enqueue,
    setResponder: (next) => {
      responder = next;
    },
    disconnectedRequests: () => disconnectedCount,
    setModelList: script.setModelList,
    reset: () => {
      script.reset();
      responder = echoResponder;
      disconnectedCount = 0;
    },
    close: () => server.close(),
  };
}

/** The SDK copies `x-request-id` into its errors, so tests can check Merino logs it. */
function requestIdHeader(): Record<string, string> {
  return { 'x-request-id': `req_${randomBytes(16).toString('hex')}` };
}
