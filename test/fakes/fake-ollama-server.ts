// A scriptable stand-in for a local Ollama daemon that speaks its native API (/api/chat NDJSON,
// /api/embed, /api/tags), so Merino's Ollama provider can be tested without a model on the machine.
import { createHash } from 'node:crypto';
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

export type { RecordedRequest } from './fake-http.js';

const DEFAULT_TEXT_PIECES = 3;
const OLLAMA_VERSION = '0.12.6';
/** Plausible fixed timings in nanoseconds, the unit Ollama reports durations in. */
const LOAD_DURATION_NS = 2_000_000;
const PROMPT_EVAL_NS_PER_TOKEN = 100_000;
const EVAL_NS_PER_TOKEN = 1_000_000;
const MODIFIED_AT = '2025-01-15T10:20:30.123456789+01:00';

interface ListedModel {
  name: string;
  sizeBytes: number;
  family: string;
  parameterSize: string;
  quantizationLevel: string;
}

const LISTED_MODELS: readonly ListedModel[] = [
  { name: 'llama3.2:latest', sizeBytes: 2_019_393_189, family: 'llama', parameterSize: '3.2B', quantizationLevel: 'Q4_K_M' },
  { name: 'qwen2.5:7b', sizeBytes: 4_683_087_332, family: 'qwen2', parameterSize: '7.6B', quantizationLevel: 'Q4_K_M' },
  { name: 'nomic-embed-text:latest', sizeBytes: 274_302_450, family: 'nomic-bert', parameterSize: '137M', quantizationLevel: 'F16' },
];

export interface ScriptedOllamaToolCall {
  name: string;
  /** Ollama sends arguments as a JSON object, not as JSON text as OpenAI does. */
  arguments: Record<string, unknown>;
}

export interface ScriptedOllamaReply {
  /** Whole answer; streamed as `chunks` when given, otherwise split into about three pieces. */
  text?: string;
  /** Exact content pieces to stream, one NDJSON line each. */
  chunks?: string[];
  toolCalls?: ScriptedOllamaToolCall[];
  /** Defaults to 'stop', which Ollama also reports after tool calls. */
  doneReason?: 'stop' | 'length';
  /** Defaults to estimates derived from the prompt and answer lengths. */
  usage?: { prompt_eval_count: number; eval_count: number };
  /** Wait before the response headers. */
  delayMs?: number;
  /** Wait between streamed lines. */
  chunkDelayMs?: number;
  /** Answer with this HTTP status and `{"error": errorMessage}` instead of a reply. */
  status?: number;
  errorMessage?: string;
  /** Stream this many lines, then destroy the socket before the `done: true` line. Non-stream: headers, then destroy. */
  dropAfterChunks?: number;
  /** Stream this many lines, then a `{not json` line, then end. Non-stream: a truncated JSON body. */
  malformedAfterChunks?: number;
  /** Stream this many lines, then end the response cleanly without the `done: true` line. */
  endAfterChunks?: number;
  /** Stream this many lines, then send nothing more until the client gives up (or the fake closes). */
  hangAfterChunks?: number;
}

export interface FakeOllamaServer {
  /** e.g. http://127.0.0.1:PORT, without a path, as Ollama clients expect. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** FIFO, one reply per chat request. */
  enqueue(...replies: ScriptedOllamaReply[]): void;
  /** Used when the queue is empty. */
  setResponder(responder: (request: RecordedRequest) => ScriptedOllamaReply): void;
  /** How many chat requests the client closed before the response ended. */
  disconnectedRequests(): number;
  /** How `GET /api/tags` answers from now on (models, a wait, an error status, a malformed body). */
  setModelList(script: ScriptedModelList): void;
  /** Clears the queue, the recorded requests, the disconnect count and the model list script, and restores the echo responder. */
  reset(): void;
  close(): Promise<void>;
}

function lastUserMessageText(body: unknown): string {
  if (!isRecord(body) || !Array.isArray(body.messages)) return '';
  for (let index = body.messages.length - 1; index >= 0; index -= 1) {
    const message: unknown = body.messages[index];
    if (isRecord(message) && message.role === 'user' && typeof message.content === 'string') return message.content;
  }
  return '';
}

function echoResponder(request: RecordedRequest): ScriptedOllamaReply {
  return { text: `echo: ${lastUserMessageText(request.body)}` };
}

function replyText(reply: ScriptedOllamaReply): string {
  return reply.chunks !== undefined ? reply.chunks.join('') : (reply.text ?? '');
}

function promptText(body: Record<string, any>): string {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  return messages.map((message) => (isRecord(message) && typeof message.content === 'string' ? message.content : '')).join('\n');
}

function toolCallsOnTheWire(calls: ScriptedOllamaToolCall[]): Array<{ function: { name: string; arguments: Record<string, unknown> } }> {
  return calls.map((call) => ({ function: { name: call.name, arguments: call.arguments } }));
}

function sendOllamaError(response: http.ServerResponse, status: number, message: string): void {
  sendJson(response, status, { error: message });
}

export async function startFakeOllamaServer(): Promise<FakeOllamaServer> {
  const script = new ScriptedProvider<ScriptedOllamaReply>();
  let responder: (request: RecordedRequest) => ScriptedOllamaReply = echoResponder;
  let disconnectedCount = 0;

  /** The counters Ollama appends to its final object; total_duration covers the real time spent. */
  function finalCounters(reply: ScriptedOllamaReply, body: Record<string, any>, startedAt: bigint): Record<string, number> {
    const toolText = (reply.toolCalls ?? []).map((call) => call.name + JSON.stringify(call.arguments)).join('');
    const promptEvalCount = reply.usage?.prompt_eval_count ?? estimateTokens(promptText(body));
    const evalCount = reply.usage?.eval_count ?? estimateTokens(replyText(reply) + toolText);
    const promptEvalDuration = promptEvalCount * PROMPT_EVAL_NS_PER_TOKEN;
    const evalDuration = evalCount * EVAL_NS_PER_TOKEN;
    const elapsed = Number(process.hrtime.bigint() - startedAt);
    return {
      total_duration: Math.max(elapsed, LOAD_DURATION_NS + promptEvalDuration + evalDuration),
      load_duration: LOAD_DURATION_NS,
      prompt_eval_count: promptEvalCount,
      prompt_eval_duration: promptEvalDuration,
      eval_count: evalCount,
      eval_duration: evalDuration,
    };
  }

  async function handleChat(
    body: Record<string, any>,
    recorded: RecordedRequest,
    response: http.ServerResponse,
    shutdownSignal: AbortSignal,
  ): Promise<void> {
    const startedAt = process.hrtime.bigint();
    const exchange = watchExchange(response, shutdownSignal, () => {
      disconnectedCount += 1;
    });
    if (typeof body.model !== 'string' || body.model === '') {
      sendOllamaError(response, 400, 'model is required');
      return;
    }

    let reply: ScriptedOllamaReply;
    try {
      reply = script.queue.shift() ?? responder(recorded);
    } catch (error) {
      sendOllamaError(response, 500, `fake responder threw: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }

    if (!(await pause(reply.delayMs, exchange.signal))) return;
    if (reply.status !== undefined) {
      sendOllamaError(response, reply.status, reply.errorMessage ?? `request failed with status ${reply.status}`);
      return;
    }

    const model = body.model;
    // Ollama streams unless the request says `"stream": false` explicitly.
    if (body.stream === false) {
      await sendWhole(reply, body, model, startedAt, response, exchange);
    } else {
      await streamLines(reply, body, model, startedAt, response, exchange);
    }
  }

  async function sendWhole(
    reply: ScriptedOllamaReply,
    body: Record<string, any>,
    model: string,
    startedAt: bigint,
    response: http.ServerResponse,
    exchange: Exchange,
  ): Promise<void> {
    const message: Record<string, unknown> = { role: 'assistant', content: replyText(reply) };
    if ((reply.toolCalls?.length ?? 0) > 0) message.tool_calls = toolCallsOnTheWire(reply.toolCalls ?? []);
    const whole = {
      model,
      created_at: new Date().toISOString(),
      message,
      done_reason: reply.doneReason ?? 'stop',
      done: true,
      ...finalCounters(reply, body, startedAt),
    };
    if (reply.dropAfterChunks !== undefined || reply.malformedAfterChunks !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      if (reply.malformedAfterChunks !== undefined) {
        const text = JSON.stringify(whole);
        response.end(text.slice(0, Math.floor(text.length / 2)));
        return;
      }
      await writeFlushed(response, '');
      exchange.markClosedByServer();
      response.destroy();
      return;
    }
    sendJson(response, 200, whole);
  }

  async function streamLines(
    reply: ScriptedOllamaReply,
    body: Record<string, any>,
    model: string,
    startedAt: bigint,
    response: http.ServerResponse,
    exchange: Exchange,
  ): Promise<void> {
    const contentPieces = reply.chunks ?? splitIntoPieces(reply.text ?? '', DEFAULT_TEXT_PIECES);
    const partials: Array<Record<string, unknown>> = contentPieces.map((piece) => ({ role: 'assistant', content: piece }));
    // Ollama sends each parsed tool call whole, on its own line with empty content, before the final line.
    for (const call of reply.toolCalls ?? []) {
      partials.push({ role: 'assistant', content: '', tool_calls: toolCallsOnTheWire([call]) });
    }

    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    response.flushHeaders();

    for (const [index, message] of partials.entries()) {
      if (await actOutStreamFault(reply, { index, response, exchange, malformedLine: '{not json\n' })) return;
      if (index > 0 && !(await pause(reply.chunkDelayMs, exchange.signal))) return;
      if (exchange.signal.aborted) return;
      const line = { model, created_at: new Date().toISOString(), message, done: false };
      await writeFlushed(response, `${JSON.stringify(line)}\n`);
    }
    if (reply.dropAfterChunks !== undefined) {
      exchange.markClosedByServer();
      response.destroy();
      return;
    }
    if (reply.malformedAfterChunks !== undefined) {
      response.end('{not json\n');
      return;
    }
    if (partials.length > 0 && !(await pause(reply.chunkDelayMs, exchange.signal))) return;
    const finalLine = {
      model,
      created_at: new Date().toISOString(),
      message: { role: 'assistant', content: '' },
      done_reason: reply.doneReason ?? 'stop',
      done: true,
      ...finalCounters(reply, body, startedAt),
    };
    response.end(`${JSON.stringify(finalLine)}\n`);
  }

  function handleEmbed(body: Record<string, any>, response: http.ServerResponse): void {
    const startedAt = process.hrtime.bigint();
    if (typeof body.model !== 'string' || body.model === '') {
      sendOllamaError(response, 400, 'model is required');
      return;
    }
    const rawInput: unknown = body.input;
    // Ollama answers a missing input with an empty list rather than an error.
    const inputs: unknown[] = rawInput === undefined ? [] : Array.isArray(rawInput) ? rawInput : [rawInput];
    if (!inputs.every((input) => typeof input === 'string')) {
      sendOllamaError(response, 400, 'invalid input type');
      return;
    }
    const texts = inputs;
    const promptEvalCount = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
    const elapsed = Number(process.hrtime.bigint() - startedAt);
    sendJson(response, 200, {
      model: body.model,
      embeddings: texts.map((text) => deterministicEmbedding(text)),
      total_duration: Math.max(elapsed, LOAD_DURATION_NS + promptEvalCount * PROMPT_EVAL_NS_PER_TOKEN),
      load_duration: LOAD_DURATION_NS,
      prompt_eval_count: promptEvalCount,
    });
  }

  /** `GET /api/tags` as Ollama answers it, or as the script says. */
  async function sendScriptedTags(response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const exchange = watchExchange(response, shutdownSignal, () => undefined);
    if (!(await pause(script.modelList.delayMs, exchange.signal))) return;
    if (script.modelList.status !== undefined) {
      sendOllamaError(response, script.modelList.status, script.modelList.status === 401 ? 'unauthorized' : 'internal server error');
    } else if (script.modelList.malformed === true) {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end('{"models":[{"name":"llama');
    } else {
      const scripted = script.modelList.models?.map((name) => ({ ...LISTED_MODELS[0]!, name }));
      sendTags(response, scripted ?? LISTED_MODELS);
    }
  }

  function sendTags(response: http.ServerResponse, listed: readonly ListedModel[]): void {
    sendJson(response, 200, {
      models: listed.map((model) => ({
        name: model.name,
        model: model.name,
        modified_at: MODIFIED_AT,
        size: model.sizeBytes,
        digest: createHash('sha256').update(model.name).digest('hex'),
        details: {
          parent_model: '',
          format: 'gguf',
          family: model.family,
          families: [model.family],
          parameter_size: model.parameterSize,
          quantization_level: model.quantizationLevel,
        },
      })),
    });
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const method = request.method ?? 'GET';
    const { url, bodyResult, recorded } = await readAndRecord(request, script.requests);
    const path = url.pathname;
    if (bodyResult.kind === 'aborted') return;

    const route = `${method} ${path}`;
    switch (route) {
      case 'GET /':
      case 'HEAD /':
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(method === 'HEAD' ? undefined : 'Ollama is running');
        return;
      case 'GET /api/version':
        sendJson(response, 200, { version: OLLAMA_VERSION });
        return;
      case 'GET /api/tags':
        await sendScriptedTags(response, shutdownSignal);
        return;
      case 'POST /api/chat':
      case 'POST /api/embed':
        break;
      default:
        // Ollama's router (Go gin) answers unknown routes with plain text, not its JSON error shape.
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('404 page not found');
        return;
    }

    if (bodyResult.kind === 'too-large') {
      sendOllamaError(response, 413, 'request body too large');
      return;
    }
    if (bodyResult.kind === 'empty') {
      sendOllamaError(response, 400, 'missing request body');
      return;
    }
    if (bodyResult.kind === 'invalid') {
      sendOllamaError(response, 400, `invalid JSON: ${bodyResult.reason}`);
      return;
    }
    if (!isRecord(bodyResult.value)) {
      sendOllamaError(response, 400, 'request body must be a JSON object');
      return;
    }
    if (path === '/api/embed') {
      handleEmbed(bodyResult.value, response);
      return;
    }
    await handleChat(bodyResult.value, recorded, response, shutdownSignal);
  }

  const server = await listenOnLoopback(handle);
  return {
    baseUrl: server.origin,
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
