/**
 * gemini — Google's Gemini models through the official `@google/genai` SDK (streamGenerateContent
 * over server-sent events). The client is given the provider's URL, key and fetch (the outbound
 * guard's for an organization's URL) in its httpOptions, never reads the environment and never
 * retries. OpenAI-shaped messages become Gemini contents: system messages the system instruction,
 * assistant tool calls `functionCall` parts, tool messages `functionResponse` parts. A call's
 * thought signature, which Gemini wants back with the call, travels inside the call's id, the one
 * thing about a call the tool loop carries back unchanged.
 */
import type { Content, GenerateContentParameters, GenerateContentResponse, GoogleGenAI, Part } from '@google/genai';
import { AppError } from '../errors/app-error.js';
import {
  defineConnector,
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
  type FinishReason,
  type ProviderSettings,
} from '../pipeline/plugin-api.js';
import { trimCharactersEnd } from '../text-trimming/trim-characters.js';

const DEFAULT_MODEL = 'gemini-2.5-flash';
const DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
const API_VERSION = 'v1beta';
/** The most models one page of the model list may hold: one request lists them all. */
const MODEL_LIST_PAGE_SIZE = 1_000;
/** Sent as the key when the provider has none, so the SDK reads no key of its own from the environment. */
const PLACEHOLDER_API_KEY = 'not-needed';
/** Between a call's own id and its thought signature inside the id the tool loop carries (base64 holds no dot). */
const SIGNATURE_SEPARATOR = '.';

const FINISH_REASONS: Partial<Record<string, FinishReason>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
};

/**
 * The SDK, loaded when a request first needs it: loading it costs a process about 20 MiB of memory
 * (measured), which a server that never calls Gemini need not pay. Its error class exists only once
 * it is loaded, and only it throws it.
 */
let sdk: typeof import('@google/genai') | undefined;

/** The SDK once `client` has loaded it: a request's contents are built after that. */
function loadedSdk(): typeof import('@google/genai') {
  if (sdk === undefined) throw new Error('the Gemini SDK was used before it was loaded');
  return sdk;
}

async function client(provider: ProviderSettings, timeoutMilliseconds: number): Promise<GoogleGenAI> {
  sdk ??= await import('@google/genai');
  return new sdk.GoogleGenAI({
    // Passed always, so the SDK reads neither GEMINI_API_KEY/GOOGLE_API_KEY nor Vertex settings from the environment.
    apiKey: provider.apiKey ?? PLACEHOLDER_API_KEY,
    vertexai: false,
    httpOptions: {
      baseUrl: trimCharactersEnd(provider.baseUrl ?? DEFAULT_BASE_URL, '/'),
      apiVersion: API_VERSION,
      fetch: provider.fetch,
      timeout: timeoutMilliseconds,
      retryOptions: { attempts: 1 },
    },
  });
}

function contentParts(content: ChatMessage['content']): Part[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const parts: Part[] = [];
  for (const part of content) {
    if (isTextPart(part)) {
      if (part.text !== '') parts.push({ text: part.text });
      continue;
    }
    const imageUrl = (part as { image_url?: { url?: unknown } }).image_url?.url;
    const inline = typeof imageUrl === 'string' ? /^data:(image\/[a-z+.-]+);base64,(.*)$/s.exec(imageUrl) : null;
    if (inline) parts.push({ inlineData: { mimeType: inline[1]!, data: inline[2]! } });
  }
  return parts;
}

function argumentsOf(argumentsJson: unknown): Record<string, unknown> {
  try {
    const parsed: unknown = typeof argumentsJson === 'string' ? JSON.parse(argumentsJson) : undefined;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

interface CallOfMessage {
  id: string;
  name: string;
  argumentsJson: unknown;
}

function callsOf(message: ChatMessage): CallOfMessage[] {
  const calls: CallOfMessage[] = [];
  for (const call of message.tool_calls ?? []) {
    const { id, function: called } = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (typeof id === 'string' && typeof called?.name === 'string') calls.push({ id, name: called.name, argumentsJson: called.arguments });
  }
  return calls;
}

function functionCallPart(call: CallOfMessage): Part {
  const separator = call.id.indexOf(SIGNATURE_SEPARATOR);
  const signature = separator === -1 ? undefined : call.id.slice(separator + 1);
  return {
    functionCall: { name: call.name, args: argumentsOf(call.argumentsJson) },
    ...(signature !== undefined && signature !== '' && { thoughtSignature: signature }),
  };
}

/** One tool message as the `functionResponse` part Gemini reads, named after the call it answers. */
function functionResponsePart(name: string, message: ChatMessage): Part {
  const { FunctionResponse } = loadedSdk();
  const functionResponse = new FunctionResponse();
  functionResponse.name = name;
  functionResponse.response = { content: messageText(message.content) };
  return { functionResponse };
}

interface Turn {
  role: 'user' | 'model';
  parts: Part[];
}

/** The contents Gemini reads: turns of `user` and `model`, neighbours of one role joined, tool results named after their call. */
function upstreamContents(messages: readonly ChatMessage[]): Content[] {
  const namesById = new Map<string, string>();
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') continue;
    let turn: Turn;
    if (message.role === 'assistant') {
      const calls = callsOf(message);
      for (const call of calls) namesById.set(call.id, call.name);
      turn = { role: 'model', parts: [...contentParts(message.content), ...calls.map(functionCallPart)] };
    } else if (message.role === 'tool') {
      turn = { role: 'user', parts: [functionResponsePart(namesById.get(message.tool_call_id ?? '') ?? 'tool', message)] };
    } else turn = { role: 'user', parts: contentParts(message.content) };
    const previous = turns.at(-1);
    if (previous !== undefined && previous.role === turn.role) previous.parts.push(...turn.parts);
    else turns.push(turn);
  }
  return turns.map((turn) => ({ role: turn.role, parts: turn.parts.length === 0 ? [{ text: '(empty)' }] : turn.parts }));
}

function requestOf(request: ConnectorRequest, signal: AbortSignal): GenerateContentParameters {
  const { parameters } = request;
  const system = request.messages
    .filter((message) => message.role === 'system' || message.role === 'developer')
    .map((message) => messageText(message.content))
    .filter((text) => text !== '');
  return {
    model: request.model || DEFAULT_MODEL,
    contents: upstreamContents(request.messages),
    config: {
      abortSignal: signal,
      ...(system.length > 0 && { systemInstruction: system.join('\n\n') }),
      ...(parameters.temperature !== undefined && { temperature: parameters.temperature }),
      ...(parameters.top_p !== undefined && { topP: parameters.top_p }),
      ...(parameters.max_tokens !== undefined && { maxOutputTokens: parameters.max_tokens }),
      ...(parameters.seed !== undefined && { seed: parameters.seed }),
      ...(parameters.stop !== undefined && { stopSequences: [parameters.stop].flat() }),
      ...(request.tools !== undefined &&
        request.tools.length > 0 && {
          tools: [
            {
              functionDeclarations: request.tools.map((tool) => ({
                name: tool.name,
                description: tool.description,
                parametersJsonSchema: tool.parameters,
              })),
            },
          ],
        }),
    },
  };
}

/** What the stream said so far: calls, the last usage and how it ended. */
class StreamState {
  calls = 0;
  promptTokens = 0;
  completionTokens = 0;
  sawCall = false;
  finishReason: FinishReason | undefined;

  *eventsOf(chunk: GenerateContentResponse): Generator<ConnectorEvent> {
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.text && part.thought === true) yield { type: 'reasoning-delta', text: part.text };
      else if (part.text) yield { type: 'text-delta', text: part.text };
      if (part.functionCall?.name !== undefined) {
        this.sawCall = true;
        this.calls += 1;
        const id = `${part.functionCall.id ?? `call_${this.calls}`}${part.thoughtSignature ? `${SIGNATURE_SEPARATOR}${part.thoughtSignature}` : ''}`;
        yield {
          type: 'tool-call',
          call: { id, name: part.functionCall.name, argumentsJson: JSON.stringify(part.functionCall.args ?? {}) },
        };
      }
    }
    if (candidate?.finishReason !== undefined) this.finishReason = FINISH_REASONS[candidate.finishReason] ?? 'stop';
    const usage = chunk.usageMetadata;
    if (usage) {
      this.promptTokens = usage.promptTokenCount ?? this.promptTokens;
      this.completionTokens = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
    }
  }

  *endingEvents(): Generator<ConnectorEvent> {
    if (this.finishReason === undefined) throw upstreamEndedEarlyError();
    yield {
      type: 'usage',
      usage: {
        prompt_tokens: this.promptTokens,
        completion_tokens: this.completionTokens,
        total_tokens: this.promptTokens + this.completionTokens,
      },
    };
    // Gemini ends a turn of calls with STOP; the pipeline wants to know calls are waiting.
    yield { type: 'finish', finishReason: this.sawCall && this.finishReason === 'stop' ? 'tool_calls' : this.finishReason };
  }
}

function translateError(error: unknown, request: ConnectorRequest, signal: AbortSignal): Error {
  if (error instanceof AppError && !signal.aborted) return error;
  if (signal.aborted) return upstreamAbortError(request.signal, request.timeoutMilliseconds);
  const refusal = outboundRefusalIn(error);
  if (refusal) return refusal;
  if (oversizedAnswerIn(error)) return oversizedAnswerError();
  if (sdk !== undefined && error instanceof sdk.ApiError) {
    // Google answers a wrong key with 400 INVALID_ARGUMENT, naming the reason in the body.
    const keySent = request.provider.apiKey !== undefined;
    if (error.status === 400 && error.message.includes('API_KEY_INVALID')) return upstreamStatusError(401, { keySent });
    if (error.status === 503) return new AppError('upstream_rate_limited', 'The model provider is overloaded; try again later.');
    return upstreamStatusError(error.status, { keySent });
  }
  if (error instanceof SyntaxError) return new AppError('upstream_error', 'The model provider sent a malformed stream.');
  return unreachableProviderError();
}

async function* streamedChat(request: ConnectorRequest): AsyncGenerator<ConnectorEvent> {
  const deadline = startDeadline(request.timeoutMilliseconds, request.signal);
  const { signal } = deadline;
  const state = new StreamState();
  try {
    try {
      const genai = await client(request.provider, request.timeoutMilliseconds);
      const stream = await genai.models.generateContentStream(requestOf(request, signal));
      for await (const chunk of stream) yield* state.eventsOf(chunk);
    } catch (error) {
      throw translateError(error, request, signal);
    }
    if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
    yield* state.endingEvents();
  } finally {
    deadline.clear();
  }
}

/** `{ models: [{ name: "models/x", supportedGenerationMethods }] }` as the ids of the models that generate content. */
function chatModelIds(answer: unknown): string[] | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const models: unknown = (answer as Record<string, unknown>).models ?? [];
  if (!Array.isArray(models)) return undefined;
  const ids: string[] = [];
  for (const model of models) {
    const { name, supportedGenerationMethods: methods } = (model ?? {}) as { name?: unknown; supportedGenerationMethods?: unknown };
    if (typeof name !== 'string' || name === '') return undefined;
    if (Array.isArray(methods) && !methods.includes('generateContent')) continue;
    ids.push(name.replace(/^models\//, ''));
  }
  return ids;
}

/** The models the provider serves (`GET {base}/v1beta/models`); Google lists nothing without a key. */
function listedModels(provider: ProviderSettings, signal: AbortSignal): Promise<string[]> {
  if (provider.baseUrl === undefined && provider.apiKey === undefined) return Promise.reject(new ModelListError('no_key'));
  return requestModelList({
    provider,
    url: `${trimCharactersEnd(provider.baseUrl ?? DEFAULT_BASE_URL, '/')}/${API_VERSION}/models?pageSize=${MODEL_LIST_PAGE_SIZE}`,
    headers: { 'x-goog-api-key': provider.apiKey ?? PLACEHOLDER_API_KEY },
    signal,
    read: chatModelIds,
  });
}

export default defineConnector({
  name: 'gemini',
  description: "Google's Gemini models through the Gemini API: streamed text, function calling and thoughts.",
  models: listedModels,
  complete: streamedChat,
});
