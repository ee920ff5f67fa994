/**
 * anthropic — Claude through Anthropic's Messages API and the official `@anthropic-ai/sdk`.
 * The client is given the provider's URL, key and fetch (the outbound guard's for an organization's
 * URL), never reads the environment, and never retries: the pipeline's deadline and the client's
 * signal end the call. OpenAI-shaped messages become Anthropic's: system messages the `system`
 * parameter, assistant tool calls `tool_use` blocks, tool messages `tool_result` blocks. The raw
 * stream becomes text, reasoning (thinking blocks), whole tool calls, usage and a finish reason;
 * failures become catalogue errors with messages of our own, never the provider's.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { APIError } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  StopReason,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { AppError } from '../errors/app-error.js';
import {
  defineConnector,
  idsInList,
  isTextPart,
  messageText,
  ModelListError,
  outboundRefusalIn,
  oversizedAnswerError,
  oversizedAnswerIn,
  requestModelList,
  startDeadline,
  unreachableProviderError,
  upstreamAbortError,
  upstreamEndedEarlyError,
  upstreamStatusError,
  type ChatMessage,
  type ConnectorEvent,
  type ConnectorRequest,
  type ContentPart,
  type FinishReason,
  type ModelToolCall,
  type ProviderSettings,
} from '../pipeline/plugin-api.js';
import { trimCharactersEnd } from '../text-trimming/trim-characters.js';

const DEFAULT_MODEL = 'claude-sonnet-4-5';
const DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The Messages API version the model list is asked with; the SDK sends its own with messages. */
const API_VERSION = '2023-06-01';
/** Anthropic requires `max_tokens`; a client that sets none gets this many. */
const DEFAULT_MAX_TOKENS = 4_096;
/** The most models one page of `GET /v1/models` may hold: one request lists them all. */
const MODEL_LIST_PAGE_SIZE = 1_000;
/** Sent as the key when the provider has none (an organization URL set without one), so the SDK reads no key of its own. */
const PLACEHOLDER_API_KEY = 'not-needed';
/** Anthropic's status for an overloaded service. */
const OVERLOADED_STATUS = 529;

const FINISH_REASONS: Partial<Record<string, FinishReason>> & Record<StopReason, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
};

/**
 * The SDK, loaded when a request first needs it: loading it costs a process about 22 MiB of memory
 * (measured), which a server that never calls Claude need not pay. Its error classes exist only
 * once it is loaded, and only it throws them.
 */
let sdk: typeof import('@anthropic-ai/sdk') | undefined;

async function client(provider: ProviderSettings): Promise<Anthropic> {
  sdk ??= await import('@anthropic-ai/sdk');
  return new sdk.default({
    // Passed always, so the SDK reads neither ANTHROPIC_API_KEY nor a credentials file: the key is the provider's or none.
    apiKey: provider.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: trimCharactersEnd(provider.baseUrl ?? DEFAULT_BASE_URL, '/'),
    fetch: provider.fetch,
    maxRetries: 0,
    logLevel: 'off',
  });
}

/** An OpenAI image part (`image_url`, a data URL or a web address) as an Anthropic image block. */
function imageBlock(part: ContentPart): ImageBlockParam | undefined {
  const imageUrl = (part as { image_url?: { url?: unknown } }).image_url?.url;
  if (part.type !== 'image_url' || typeof imageUrl !== 'string') return undefined;
  const inline = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s.exec(imageUrl);
  if (inline) return { type: 'image', source: { type: 'base64', media_type: inline[1] as 'image/png', data: inline[2]! } };
  return { type: 'image', source: { type: 'url', url: imageUrl } };
}

function contentBlocks(content: ChatMessage['content']): ContentBlockParam[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: ContentBlockParam[] = [];
  for (const part of content) {
    if (isTextPart(part)) {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
      continue;
    }
    const image = imageBlock(part);
    if (image) blocks.push(image);
  }
  return blocks;
}

/** The arguments a model wrote, as the object Anthropic wants back; text that is not an object becomes an empty one. */
function toolInput(argumentsJson: unknown): Record<string, unknown> {
  try {
    const parsed: unknown = typeof argumentsJson === 'string' ? JSON.parse(argumentsJson) : undefined;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function toolUseBlocks(message: ChatMessage): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const call of message.tool_calls ?? []) {
    const { id, function: called } = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof id !== 'string' || typeof called?.name !== 'string') continue;
    blocks.push({ type: 'tool_use', id, name: called.name, input: toolInput(called.arguments) });
  }
  return blocks;
}

/** One OpenAI message as the role and blocks of an Anthropic turn; system messages are taken apart before. */
function turnOf(message: ChatMessage): MessageParam {
  if (message.role === 'tool')
    return {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: messageText(message.content) }],
    };
  if (message.role === 'assistant') return { role: 'assistant', content: [...contentBlocks(message.content), ...toolUseBlocks(message)] };
  return { role: 'user', content: contentBlocks(message.content) };
}

/** Anthropic wants turns that alternate: neighbours of one role (several tool results, say) become one turn. */
function upstreamTurns(messages: readonly ChatMessage[]): MessageParam[] {
  const turns: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') continue;
    const turn = turnOf(message);
    const previous = turns.at(-1);
    if (previous?.role === turn.role) (previous.content as ContentBlockParam[]).push(...(turn.content as ContentBlockParam[]));
    else turns.push(turn);
  }
  // An empty turn is refused upstream; one sent empty (an answer with neither text nor calls) says so.
  for (const turn of turns) if ((turn.content as ContentBlockParam[]).length === 0) turn.content = [{ type: 'text', text: '(empty)' }];
  return turns;
}

function systemText(messages: readonly ChatMessage[]): string | undefined {
  const parts = messages
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map((message) => messageText(message.content))
    .filter((text) => text !== '');
  return parts.length === 0 ? undefined : parts.join('\n\n');
}

function requestBody(request: ConnectorRequest): MessageCreateParamsStreaming {
  const { parameters } = request;
  const system = systemText(request.messages);
  const stop = parameters.stop === undefined ? undefined : [parameters.stop].flat();
  return {
    model: request.model || DEFAULT_MODEL,
    max_tokens: parameters.max_tokens ?? DEFAULT_MAX_TOKENS,
    messages: upstreamTurns(request.messages),
    stream: true,
    ...(system !== undefined && { system }),
    ...(parameters.temperature !== undefined && { temperature: parameters.temperature }),
    ...(parameters.top_p !== undefined && { top_p: parameters.top_p }),
    ...(stop !== undefined && { stop_sequences: stop }),
    ...(parameters.user !== undefined && { metadata: { user_id: parameters.user } }),
    ...(request.tools !== undefined &&
      request.tools.length > 0 && {
        tools: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          input_schema: tool.parameters as { type: 'object' },
        })),
      }),
  };
}

/** What the stream said so far: the calls being written, the tokens counted and how it ended. */
class StreamState {
  readonly calls = new Map<number, ModelToolCall>();
  inputTokens = 0;
  outputTokens = 0;
  finishReason: FinishReason | undefined;
  stopped = false;

  *eventsOf(event: RawMessageStreamEvent): Generator<ConnectorEvent> {
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        this.inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
        this.outputTokens = usage.output_tokens;
        return;
      }
      case 'content_block_start':
        if (event.content_block.type === 'tool_use')
          this.calls.set(event.index, { id: event.content_block.id, name: event.content_block.name, argumentsJson: '' });
        return;
      case 'content_block_delta':
        yield* this.deltaEvents(event.index, event.delta);
        return;
      case 'message_delta':
        this.outputTokens = event.usage.output_tokens;
        // A stop reason newer than this file is still an ending.
        if (event.delta.stop_reason !== null) this.finishReason = FINISH_REASONS[event.delta.stop_reason as string] ?? 'stop';
        return;
      case 'message_stop':
        this.stopped = true;
        return;
      default:
        return;
    }
  }

  private *deltaEvents(
    index: number,
    delta: { type: string; text?: string; thinking?: string; partial_json?: string },
  ): Generator<ConnectorEvent> {
    if (delta.type === 'text_delta' && delta.text) yield { type: 'text-delta', text: delta.text };
    else if (delta.type === 'thinking_delta' && delta.thinking) yield { type: 'reasoning-delta', text: delta.thinking };
    else if (delta.type === 'input_json_delta' && delta.partial_json) {
      const call = this.calls.get(index);
      if (call) call.argumentsJson += delta.partial_json;
    }
  }

  /** The events after the last chunk; a stream that never said how it ended was cut. */
  *endingEvents(): Generator<ConnectorEvent> {
    if (!this.stopped || this.finishReason === undefined) throw upstreamEndedEarlyError();
    for (const call of this.calls.values()) yield { type: 'tool-call', call: { ...call, argumentsJson: call.argumentsJson || '{}' } };
    yield {
      type: 'usage',
      usage: { prompt_tokens: this.inputTokens, completion_tokens: this.outputTokens, total_tokens: this.inputTokens + this.outputTokens },
    };
    yield { type: 'finish', finishReason: this.finishReason };
  }
}

/** An error the API reported, by its HTTP status or, in the middle of a stream, by its type. */
function apiErrorOf(error: APIError, request: ConnectorRequest): AppError {
  const overloaded = error.status === OVERLOADED_STATUS || error.type === 'overloaded_error';
  if (overloaded) return new AppError('upstream_rate_limited', 'The model provider is overloaded; try again later.');
  if (error.status === undefined && error.type === 'rate_limit_error') return new AppError('upstream_rate_limited');
  if (error.status !== undefined) return upstreamStatusError(error.status, { keySent: request.provider.apiKey !== undefined });
  return new AppError('upstream_error', 'The model provider reported an error mid-answer.');
}

/** What a failed call means to the client: our own errors pass, an abort is a timeout or a client gone, the API's errors by status. */
function translateError(error: unknown, request: ConnectorRequest, signal: AbortSignal): Error {
  if (error instanceof AppError && !signal.aborted) return error;
  if (signal.aborted) return upstreamAbortError(request.signal, request.timeoutMilliseconds);
  if (sdk !== undefined && error instanceof sdk.APIConnectionTimeoutError)
    return new AppError('upstream_timeout', `The model provider did not answer within ${request.timeoutMilliseconds} ms.`);
  const refusal = outboundRefusalIn(error);
  if (refusal) return refusal;
  if (oversizedAnswerIn(error)) return oversizedAnswerError();
  if (sdk !== undefined && error instanceof sdk.APIError && !(error instanceof sdk.APIConnectionError))
    return apiErrorOf(error as APIError, request);
  if (error instanceof SyntaxError) return new AppError('upstream_error', 'The model provider sent a malformed stream.');
  return unreachableProviderError();
}

async function* streamedChat(request: ConnectorRequest): AsyncGenerator<ConnectorEvent> {
  const deadline = startDeadline(request.timeoutMilliseconds, request.signal);
  const { signal } = deadline;
  const state = new StreamState();
  try {
    try {
      const anthropic = await client(request.provider);
      const stream = await anthropic.messages.create(requestBody(request), {
        signal,
        timeout: request.timeoutMilliseconds,
      });
      for await (const event of stream) yield* state.eventsOf(event);
    } catch (error) {
      throw translateError(error, request, signal);
    }
    if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
    yield* state.endingEvents();
  } finally {
    deadline.clear();
  }
}

/**
 * The models the provider serves (`GET {base}/v1/models`). Anthropic's own API lists nothing
 * without a key, so with neither a key nor a URL of its own nothing is asked.
 */
function listedModels(provider: ProviderSettings, signal: AbortSignal): Promise<string[]> {
  if (provider.baseUrl === undefined && provider.apiKey === undefined) return Promise.reject(new ModelListError('no_key'));
  return requestModelList({
    provider,
    url: `${trimCharactersEnd(provider.baseUrl ?? DEFAULT_BASE_URL, '/')}/v1/models?limit=${MODEL_LIST_PAGE_SIZE}`,
    headers: { 'x-api-key': provider.apiKey ?? PLACEHOLDER_API_KEY, 'anthropic-version': API_VERSION },
    signal,
    read: (answer) => idsInList(answer, 'data', 'id'),
  });
}

export default defineConnector({
  name: 'anthropic',
  description: "Anthropic's Claude models through the Messages API: streamed text, native tool use and extended thinking.",
  models: listedModels,
  complete: streamedChat,
});
