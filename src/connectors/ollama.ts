/**
 * ollama — Ollama's native /api/chat, whose NDJSON stream is turned into the same events as the
 * OpenAI connector's. Images in OpenAI content parts become Ollama's `images` (base64).
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import {
  defineConnector,
  idsInList,
  isTextPart,
  outboundRefusalIn,
  oversizedAnswerError,
  oversizedAnswerIn,
  requestModelList,
  streamWithinDeadline,
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

const DEFAULT_BASE_URL = 'http://127.0.0.1:11434';
const DEFAULT_MODEL = 'llama3.1';

interface OllamaMessage {
  role: string;
  content: string;
  images?: string[];
  tool_calls?: Array<{ function: { name: string; arguments: Record<string, unknown> } }>;
}

interface OpenAiToolCall {
  function?: { name?: string; arguments?: string };
}

/**
 * An earlier round's calls as Ollama takes them back: arguments as an object. A call whose JSON
 * was broken was answered with an error result; its history entry gets no arguments, because
 * Ollama refuses a request whose arguments are not an object.
 */
function ollamaToolCalls(calls: unknown[]): OllamaMessage['tool_calls'] {
  return (calls as OpenAiToolCall[]).map((call) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.function?.arguments ?? '{}');
    } catch {
      parsed = {};
    }
    const argumentsObject =
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    return { function: { name: call.function?.name ?? '', arguments: argumentsObject } };
  });
}

interface OllamaToolCall {
  function?: { name?: string; arguments?: unknown };
}

interface OllamaLine {
  message?: { content?: string; thinking?: string; tool_calls?: OllamaToolCall[] };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

/** `data:image/png;base64,AAAA` → `AAAA`; remote image URLs cannot be sent to Ollama and are dropped. */
function base64Of(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const match = /^data:[^;]+;base64,(.*)$/s.exec(url);
  return match?.[1];
}

function toOllamaMessage(message: ChatMessage): OllamaMessage {
  if (message.tool_calls !== undefined && message.tool_calls.length > 0) {
    return {
      role: message.role,
      content: typeof message.content === 'string' ? message.content : '',
      tool_calls: ollamaToolCalls(message.tool_calls),
    };
  }
  if (!Array.isArray(message.content)) return { role: message.role, content: message.content ?? '' };
  const text = message.content
    .filter(isTextPart)
    .map((part) => part.text)
    .join(' ');
  const images = message.content
    .filter((part) => part.type === 'image_url')
    .map((part) => base64Of((part as { image_url?: { url?: unknown } }).image_url?.url))
    .filter((image): image is string => image !== undefined);
  return images.length > 0 ? { role: message.role, content: text, images } : { role: message.role, content: text };
}

function requestBody(request: ConnectorRequest): Record<string, unknown> {
  const parameters = request.parameters;
  const options = Object.fromEntries(
    Object.entries({
      temperature: parameters.temperature,
      top_p: parameters.top_p,
      num_predict: parameters.max_tokens,
      stop: parameters.stop,
      seed: parameters.seed,
    }).filter(([, value]) => value !== undefined),
  );
  const wantsJson = parameters.response_format?.type === 'json_object' || parameters.response_format?.type === 'json_schema';
  return {
    model: request.model || DEFAULT_MODEL,
    messages: request.messages.map(toOllamaMessage),
    ...(request.tools !== undefined &&
      request.tools.length > 0 && { tools: request.tools.map((tool) => ({ type: 'function', function: tool })) }),
    stream: true,
    ...(Object.keys(options).length > 0 && { options }),
    ...(wantsJson && { format: 'json' }),
  };
}

function* eventsOf(line: OllamaLine): Generator<ConnectorEvent> {
  if (line.error !== undefined) throw new AppError('upstream_error', 'The model provider reported an error mid-answer.');
  if (line.message?.thinking) yield { type: 'reasoning-delta', text: line.message.thinking };
  if (line.message?.content) yield { type: 'text-delta', text: line.message.content };
  // Ollama sends each call whole, its arguments already an object.
  for (const call of line.message?.tool_calls ?? []) {
    const argumentsJson =
      typeof call.function?.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function?.arguments ?? {});
    yield { type: 'tool-call', call: { id: `call_${randomUUID()}`, name: call.function?.name ?? '', argumentsJson } };
  }
  if (line.done) {
    const prompt = line.prompt_eval_count ?? 0;
    const completion = line.eval_count ?? 0;
    yield { type: 'usage', usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
    yield { type: 'finish', finishReason: (line.done_reason === 'length' ? 'length' : 'stop') as FinishReason };
  }
}

function parseLine(text: string): OllamaLine {
  try {
    return JSON.parse(text) as OllamaLine;
  } catch {
    throw new AppError('upstream_error', 'The model provider sent a malformed stream.');
  }
}

async function* linesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of body) {
    buffered += decoder.decode(bytes, { stream: true });
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== '') yield line;
      newline = buffered.indexOf('\n');
    }
  }
  if (buffered.trim() !== '') yield buffered.trim();
}

async function* chat(request: ConnectorRequest, signal: AbortSignal): AsyncGenerator<ConnectorEvent> {
  const baseUrl = trimCharactersEnd(request.provider.baseUrl ?? DEFAULT_BASE_URL, '/');
  let finished = false;
  try {
    // The provider's fetch: the outbound guard when an organization set the URL.
    const response = await request.provider.fetch(`${baseUrl}/api/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(request.provider.apiKey && { authorization: `Bearer ${request.provider.apiKey}` }),
      },
      body: JSON.stringify(requestBody(request)),
      signal,
    });
    if (!response.ok || !response.body) throw upstreamStatusError(response.status, { keySent: request.provider.apiKey !== undefined });
    for await (const line of linesOf(response.body)) {
      for (const event of eventsOf(parseLine(line))) {
        if (event.type === 'finish') finished = true;
        yield event;
      }
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (signal.aborted) throw upstreamAbortError(request.signal, request.timeoutMilliseconds);
    if (oversizedAnswerIn(error)) throw oversizedAnswerError();
    throw outboundRefusalIn(error) ?? unreachableProviderError();
  }
  if (!finished) throw upstreamEndedEarlyError();
}

/** The models the Ollama server has pulled (`GET /api/tags`), by the names chats use. */
function listedModels(provider: ProviderSettings, signal: AbortSignal): Promise<string[]> {
  return requestModelList({
    provider,
    url: `${trimCharactersEnd(provider.baseUrl ?? DEFAULT_BASE_URL, '/')}/api/tags`,
    ...(provider.apiKey !== undefined && { headers: { authorization: `Bearer ${provider.apiKey}` } }),
    signal,
    read: (answer) => idsInList(answer, 'models', 'name'),
  });
}

export default defineConnector({
  name: 'ollama',
  description: "Ollama's native chat API (OLLAMA_BASE_URL), streamed as NDJSON.",
  models: listedModels,
  complete: (request) => streamWithinDeadline(request.timeoutMilliseconds, request.signal, (signal) => chat(request, signal)),
});
