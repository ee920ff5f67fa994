/**
 * openai — any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio, Ollama's /v1).
 * Whole answers (a client that waits for one JSON answer, no functions offered) go through the
 * official SDK, one pooled client per key and base URL. Streams are read leanly instead: the
 * provider's fetch plus `eventsource-parser`, because the SDK's stream iterator (line decoding,
 * byte concatenation, an object per event) was a quarter of the server's CPU under load. Chunks
 * are passed on as they arrive, and streamed tool calls are put back together and emitted whole
 * before `finish`. Upstream failures become AppErrors with real statuses and messages of our own.
 */
import { createHash } from 'node:crypto';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import { AppError } from '../errors/app-error.js';
import {
  defineConnector,
  outboundRefusalIn,
  streamWithinDeadline,
  ToolCallAssembler,
  unreachableProviderError,
  upstreamAbortError,
  upstreamEndedEarlyError,
  upstreamStatusError,
  type ChatMessage,
  type ConnectorEvent,
  type ConnectorRequest,
  type FinishReason,
  type ProviderSettings,
} from '../pipeline/plugin-api.js';
import { trimCharactersEnd } from '../validation/trim-characters.js';

const DEFAULT_MODEL = 'gpt-4o-mini';
/** The SDK's default, used when neither the organization nor the server names a URL. */
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Shown in /lamb/v1/completions/list; the server accepts any model name its provider knows. */
const LISTED_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', 'gpt-4.1'];
/** Servers that need no key (a local vLLM, say) still get a syntactically valid one. */
const PLACEHOLDER_API_KEY = 'not-needed';

const clients = new Map<string, OpenAI>();
/** A number per fetch function, so clients that reach their URL differently (guarded or not) are never shared. */
const fetchNumbers = new WeakMap<ProviderSettings['fetch'], number>();

function fetchNumberOf(fetch: ProviderSettings['fetch']): number {
  let number = fetchNumbers.get(fetch);
  if (number === undefined) {
    number = nextFetchNumber;
    nextFetchNumber += 1;
    fetchNumbers.set(fetch, number);
  }
  return number;
}
let nextFetchNumber = 1;

function clientFor(provider: ProviderSettings): OpenAI {
  const apiKey = provider.apiKey ?? PLACEHOLDER_API_KEY;
  // The pool is keyed by a hash so the key itself is not kept twice in memory.
  const poolKey = `${provider.baseUrl ?? ''}|${createHash('sha256').update(apiKey).digest('hex')}|${fetchNumberOf(provider.fetch)}`;
  let client = clients.get(poolKey);
  if (!client) {
    // The SDK's own logger writes raw upstream data (a malformed chunk, whole) to the console,
    // outside our logger and its redaction; our errors say what went wrong without quoting it.
    // Every request, redirects included, goes through the provider's fetch: the outbound guard for an organization's URL.
    client = new OpenAI({ apiKey, baseURL: provider.baseUrl, maxRetries: 0, logLevel: 'off', fetch: provider.fetch });
    clients.set(poolKey, client);
  }
  return client;
}

/** Only an assistant turn may have no content upstream; any other empty turn is sent as empty text. */
function upstreamMessages(messages: readonly ChatMessage[]): ChatCompletionCreateParamsStreaming['messages'] {
  return messages.map((message) =>
    message.content === null && message.role !== 'assistant' ? { ...message, content: '' } : message,
  ) as ChatCompletionCreateParamsStreaming['messages'];
}

function requestBody(request: ConnectorRequest): ChatCompletionCreateParamsStreaming {
  return {
    ...request.parameters,
    model: request.model || DEFAULT_MODEL,
    messages: upstreamMessages(request.messages),
    ...(request.tools !== undefined &&
      request.tools.length > 0 && { tools: request.tools.map((tool) => ({ type: 'function', function: tool })) }),
    stream: true,
    stream_options: { include_usage: true },
  } as ChatCompletionCreateParamsStreaming;
}

/** The same request for one JSON answer: what a client that waits for the whole answer costs least to read. */
function wholeRequestBody(request: ConnectorRequest): ChatCompletionCreateParamsNonStreaming {
  const { stream_options: _streamOptions, ...body } = requestBody(request);
  return { ...body, stream: false };
}

type ReasoningMessage = ChatCompletion.Choice['message'] & { reasoning_content?: string; reasoning?: string };

/** One JSON answer as the events a stream of it would give: reasoning, text, calls, usage, finish. */
function* eventsOfWhole(completion: ChatCompletion): Generator<ConnectorEvent> {
  const choice = completion.choices[0];
  // The SDK's type says there is always one; a provider that stopped early sends none (or null).
  const finishReason = choice?.finish_reason as string | null | undefined;
  // Without a finish reason nothing says the answer is whole, as with a stream that stops.
  if (choice === undefined || finishReason === undefined || finishReason === null) throw upstreamEndedEarlyError();
  const message: ReasoningMessage = choice.message;
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
  if (message.content) yield { type: 'text-delta', text: message.content };
  for (const call of message.tool_calls ?? [])
    if (call.type === 'function')
      yield { type: 'tool-call', call: { id: call.id, name: call.function.name, argumentsJson: call.function.arguments } };
  if (completion.usage) {
    const { prompt_tokens, completion_tokens } = completion.usage;
    yield { type: 'usage', usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } };
  }
  yield { type: 'finish', finishReason: finishReason as FinishReason };
}

/** Text and usage as they arrive; tool-call pieces go to the assembler and the finish reason is kept for the end. */
function* eventsOf(
  chunk: ChatCompletionChunk,
  calls: ToolCallAssembler,
  ending: { finishReason?: FinishReason },
): Generator<ConnectorEvent> {
  const choice = chunk.choices[0];
  const delta: (ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning?: string }) | undefined = choice?.delta;
  const reasoning = delta?.reasoning_content ?? delta?.reasoning;
  if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
  if (delta?.content) yield { type: 'text-delta', text: delta.content };
  for (const call of delta?.tool_calls ?? []) calls.add(call);
  if (choice?.finish_reason) ending.finishReason = choice.finish_reason as FinishReason;
  if (chunk.usage) {
    const { prompt_tokens, completion_tokens } = chunk.usage;
    yield { type: 'usage', usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } };
  }
}

function translateError(error: unknown, request: ConnectorRequest, signal: AbortSignal): Error {
  if (error instanceof APIUserAbortError || signal.aborted) return upstreamAbortError(request.signal, request.timeoutMilliseconds);
  const refusal = outboundRefusalIn(error);
  if (refusal !== undefined) return refusal;
  if (error instanceof APIConnectionError) return unreachableProviderError();
  if (error instanceof APIError && typeof error.status === 'number')
    return upstreamStatusError(error.status, { keySent: request.provider.apiKey !== undefined });
  return unreachableProviderError();
}

async function* wholeChat(request: ConnectorRequest, signal: AbortSignal): AsyncGenerator<ConnectorEvent> {
  let completion: ChatCompletion;
  try {
    completion = await clientFor(request.provider).chat.completions.create(wholeRequestBody(request), { signal });
  } catch (error) {
    throw translateError(error, request, signal);
  }
  if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
  yield* eventsOfWhole(completion);
}

/** A `data:` event as a chunk; anything that is not one is a malformed stream, like a provider's error event. */
function chunkOf(message: EventSourceMessage): ChatCompletionChunk {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.data);
  } catch {
    throw new AppError('upstream_error', 'The model provider sent a malformed stream.');
  }
  if (message.event === 'error' || typeof parsed !== 'object' || parsed === null || 'error' in parsed)
    throw new AppError('upstream_error', 'The model provider reported an error mid-answer.');
  return parsed as ChatCompletionChunk;
}

/** The stream's events, parsed as the bytes arrive, up to `data: [DONE]` or the end of the body. */
async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    for (const message of pending) {
      if (message.data === '[DONE]') return;
      yield message;
    }
    pending.length = 0;
  }
}

async function* streamedChat(request: ConnectorRequest, signal: AbortSignal): AsyncGenerator<ConnectorEvent> {
  const calls = new ToolCallAssembler();
  const ending: { finishReason?: FinishReason } = {};
  const baseUrl = trimCharactersEnd(request.provider.baseUrl ?? DEFAULT_BASE_URL, '/');
  try {
    // The provider's fetch: the outbound guard when an organization set the URL.
    const response = await request.provider.fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${request.provider.apiKey ?? PLACEHOLDER_API_KEY}`,
      },
      body: JSON.stringify(requestBody(request)),
      signal,
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw upstreamStatusError(response.status, { keySent: request.provider.apiKey !== undefined });
    }
    for await (const message of sseMessages(response.body)) yield* eventsOf(chunkOf(message), calls, ending);
  } catch (error) {
    if (error instanceof AppError && !signal.aborted) throw error;
    if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
    throw outboundRefusalIn(error) ?? unreachableProviderError();
  }
  // The SDK ends its stream quietly when its request is aborted (our timeout, or the client
  // leaving), and a stream that just stops looks like one that finished: only a finish reason
  // says the answer is whole.
  if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
  if (ending.finishReason === undefined) throw upstreamEndedEarlyError();
  for (const call of calls.finish()) yield { type: 'tool-call', call };
  yield { type: 'finish', finishReason: ending.finishReason };
}

function chat(request: ConnectorRequest, signal: AbortSignal): AsyncGenerator<ConnectorEvent> {
  return request.wholeAnswer === true ? wholeChat(request, signal) : streamedChat(request, signal);
}

export default defineConnector({
  name: 'openai',
  description:
    'OpenAI and every OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama /v1): streams read as server-sent events, whole answers through the official SDK.',
  models: () => LISTED_MODELS,
  complete: (request) => streamWithinDeadline(request.timeoutMilliseconds, request.signal, (signal) => chat(request, signal)),
});
