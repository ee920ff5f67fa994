/**
 * openai — any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio, Ollama's /v1).
 * Every call is one lean POST (the provider's `post`, undici underneath) rather than the official
 * SDK over fetch: the SDK's request building and stream iterator, with fetch's web streams, were a
 * third of the server's CPU per request under load, and the wire format is two small JSON shapes.
 * A client that waits for one JSON answer (no functions offered) gets the provider's JSON answer;
 * streams are parsed with `eventsource-parser` as the text arrives. Chunks are passed on as they
 * arrive, and streamed tool calls are put back together and emitted whole before `finish`.
 * Upstream failures become AppErrors with real statuses and messages of our own.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { AppError } from '../errors/app-error.js';
import {
  defineConnector,
  idsInList,
  messageJson,
  ModelListError,
  outboundRefusalIn,
  oversizedAnswerError,
  oversizedAnswerIn,
  requestModelList,
  startDeadline,
  ToolCallAssembler,
  unreachableProviderError,
  upstreamAbortError,
  upstreamEndedEarlyError,
  upstreamStatusError,
  type ChatMessage,
  type ConnectorEvent,
  type ConnectorRequest,
  type FinishReason,
  type OutboundPostResponse,
  type ProviderSettings,
} from '../pipeline/plugin-api.js';
import { trimCharactersEnd } from '../text-trimming/trim-characters.js';

const DEFAULT_MODEL = 'gpt-4o-mini';
/** The SDK's default, used when neither the organization nor the server names a URL. */
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Servers that need no key (a local vLLM, say) still get a syntactically valid one. */
const PLACEHOLDER_API_KEY = 'not-needed';

/** A message as JSON; only an assistant turn may have no content upstream, any other empty turn is sent as empty text. */
function upstreamMessageJson(message: ChatMessage): string {
  return messageJson(message.content === null && message.role !== 'assistant' ? { ...message, content: '' } : message);
}

/**
 * The request body; without a stream, one JSON answer, which is what a client waiting for the whole
 * answer costs least to read. The messages are written by messageJson, which escapes a long
 * prompt's unchanging parts once rather than on every request; JSON.stringify cannot take text
 * already written as JSON, so they are put in after the other fields.
 */
function requestBody(request: ConnectorRequest, stream: boolean): Buffer {
  const head = JSON.stringify({
    ...request.parameters,
    model: request.model || DEFAULT_MODEL,
    messages: undefined,
    ...(request.tools !== undefined &&
      request.tools.length > 0 && { tools: request.tools.map((tool) => ({ type: 'function', function: tool })) }),
    stream,
    ...(stream && { stream_options: { include_usage: true } }),
  });
  return Buffer.from(`${head.slice(0, -1)},"messages":[${request.messages.map(upstreamMessageJson).join(',')}]}`);
}

/** Posts the request; an error status becomes an AppError with the body discarded. */
async function post(request: ConnectorRequest, signal: AbortSignal, stream: boolean): Promise<OutboundPostResponse> {
  const baseUrl = trimCharactersEnd(request.provider.baseUrl ?? DEFAULT_BASE_URL, '/');
  const response = await request.provider.post({
    url: `${baseUrl}/chat/completions`,
    headers: {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      authorization: `Bearer ${request.provider.apiKey ?? PLACEHOLDER_API_KEY}`,
    },
    body: requestBody(request, stream),
    signal,
  });
  if (response.status < 200 || response.status > 299) {
    await response.discard().catch(() => undefined);
    throw upstreamStatusError(response.status, { keySent: request.provider.apiKey !== undefined });
  }
  return response;
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

/** What a failed call means to the client: our own errors pass, an abort is a timeout or a client gone, anything else unreachable. */
function translateError(error: unknown, request: ConnectorRequest, signal: AbortSignal): Error {
  if (error instanceof AppError && !signal.aborted) return error;
  if (signal.aborted) return upstreamAbortError(request.signal, request.timeoutMilliseconds);
  if (oversizedAnswerIn(error)) return oversizedAnswerError();
  return outboundRefusalIn(error) ?? unreachableProviderError();
}

/** The provider's JSON answer; a body that is not one is a malformed answer. */
function completionOf(text: string): ChatCompletion {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !('error' in parsed)) return parsed as ChatCompletion;
  } catch {
    // Reported below, as for a body that parses to something else.
  }
  throw new AppError('upstream_error', 'The model provider sent a malformed answer.');
}

/** One JSON answer, read whole under the upstream deadline. */
async function wholeAnswer(request: ConnectorRequest): Promise<ChatCompletion> {
  const deadline = startDeadline(request.timeoutMilliseconds, request.signal);
  const { signal } = deadline;
  try {
    const completion = completionOf(await (await post(request, signal, false)).text());
    if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
    return completion;
  } catch (error) {
    throw translateError(error, request, signal);
  } finally {
    deadline.clear();
  }
}

async function* wholeChat(request: ConnectorRequest): AsyncGenerator<ConnectorEvent> {
  yield* eventsOfWhole(await wholeAnswer(request));
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

/**
 * The stream's events as the bytes arrive, up to `data: [DONE]` or the end of the body, under the
 * upstream deadline. Decoding, parsing and the deadline live in this one generator rather than in
 * generators of their own (streamWithinDeadline's, say): each layer of async generator costs every
 * chunk of every stream a promise and a turn of the microtask queue.
 */
async function* streamedChat(request: ConnectorRequest): AsyncGenerator<ConnectorEvent> {
  const deadline = startDeadline(request.timeoutMilliseconds, request.signal);
  const { signal } = deadline;
  const calls = new ToolCallAssembler();
  const ending: { finishReason?: FinishReason } = {};
  try {
    try {
      const response = await post(request, signal, true);
      const pending: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (message) => pending.push(message) });
      const decoder = new TextDecoder();
      try {
        reading: for await (const bytes of response.body) {
          parser.feed(decoder.decode(bytes, { stream: true }));
          for (const message of pending) {
            if (message.data === '[DONE]') break reading;
            for (const event of eventsOf(chunkOf(message), calls, ending)) yield event;
          }
          pending.length = 0;
        }
      } finally {
        // What follows `[DONE]` (normally nothing) is read so the connection goes back to the pool.
        void response.discard().catch(() => undefined);
      }
    } catch (error) {
      throw translateError(error, request, signal);
    }
    // A stream cut by an abort (our timeout, or the client leaving) may end quietly, and a stream
    // that just stops looks like one that finished: only a finish reason says the answer is whole.
    if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
    if (ending.finishReason === undefined) throw upstreamEndedEarlyError();
    for (const call of calls.finish()) yield { type: 'tool-call', call };
    yield { type: 'finish', finishReason: ending.finishReason };
  } finally {
    deadline.clear();
  }
}

/**
 * The models the provider serves (`GET {base}/models`). OpenAI's own API lists nothing without a
 * key, so with neither a key nor a URL of its own nothing is asked.
 */
function listedModels(provider: ProviderSettings, signal: AbortSignal): Promise<string[]> {
  if (provider.baseUrl === undefined && provider.apiKey === undefined) return Promise.reject(new ModelListError('no_key'));
  return requestModelList({
    provider,
    url: `${trimCharactersEnd(provider.baseUrl ?? DEFAULT_BASE_URL, '/')}/models`,
    headers: { authorization: `Bearer ${provider.apiKey ?? PLACEHOLDER_API_KEY}` },
    signal,
    read: (answer) => idsInList(answer, 'data', 'id'),
  });
}

export default defineConnector({
  name: 'openai',
  description:
    'OpenAI and every OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama /v1): streams read as server-sent events, whole answers as one JSON answer.',
  models: listedModels,
  complete: (request) => (request.wholeAnswer === true ? wholeChat(request) : streamedChat(request)),
});
