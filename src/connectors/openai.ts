/**
 * openai — any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio, Ollama's /v1)
 * through the official SDK. One pooled client per key and base URL; chunks are passed on as
 * they arrive, and streamed tool calls are put back together and emitted whole before `finish`.
 * Upstream failures become AppErrors with real statuses and messages of our own.
 */
import { createHash } from 'node:crypto';
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
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

const DEFAULT_MODEL = 'gpt-4o-mini';
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

async function* chat(request: ConnectorRequest, signal: AbortSignal): AsyncGenerator<ConnectorEvent> {
  if (request.wholeAnswer === true) {
    yield* wholeChat(request, signal);
    return;
  }
  const calls = new ToolCallAssembler();
  const ending: { finishReason?: FinishReason } = {};
  try {
    const stream = await clientFor(request.provider).chat.completions.create(requestBody(request), { signal });
    for await (const chunk of stream) yield* eventsOf(chunk, calls, ending);
  } catch (error) {
    throw translateError(error, request, signal);
  }
  // The SDK ends its stream quietly when its request is aborted (our timeout, or the client
  // leaving), and a stream that just stops looks like one that finished: only a finish reason
  // says the answer is whole.
  if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
  if (ending.finishReason === undefined) throw upstreamEndedEarlyError();
  for (const call of calls.finish()) yield { type: 'tool-call', call };
  yield { type: 'finish', finishReason: ending.finishReason };
}

export default defineConnector({
  name: 'openai',
  description: 'OpenAI and every OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama /v1) through the official SDK.',
  models: () => LISTED_MODELS,
  complete: (request) => streamWithinDeadline(request.timeoutMilliseconds, request.signal, (signal) => chat(request, signal)),
});
