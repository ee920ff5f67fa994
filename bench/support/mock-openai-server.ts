/**
 * The provider of the gateway comparison (bench/gateway-comparison.ts), run as its own process:
 * an OpenAI-compatible `/v1/chat/completions` on node:http that answers every request with the
 * same 64 content deltas. Streams send them 20 ms apart once `POST /control {"paced": true}` says
 * so (the streaming phases), and all at once otherwise; non-streamed requests get one JSON answer
 * at once. A prompt that names the multi-tool assistant must also hold the file's and the
 * knowledge base's markers, or the request gets a 500: a tool that silently stopped filling its
 * placeholder counts as a failure, not as a fast request.
 *
 *   node --import tsx bench/support/mock-openai-server.ts   (prints {"port": …} on its first line)
 */
import http from 'node:http';

import {
  FILE_MARKER,
  KNOWLEDGE_MARKER,
  MOCK_ANSWER,
  MOCK_DELTA_INTERVAL_MS,
  MOCK_DELTAS,
  MOCK_MODEL,
  MOCK_PIECES,
  MULTI_TOOL_MARKER,
} from './mock-answer.js';

const USAGE = { prompt_tokens: 900, completion_tokens: MOCK_DELTAS, total_tokens: 900 + MOCK_DELTAS };

interface ChatBody {
  stream?: boolean;
  messages?: { content?: unknown }[];
}

function promptText(body: ChatBody): string {
  return (body.messages ?? []).map((message) => (typeof message.content === 'string' ? message.content : '')).join('\n');
}

function promptIsWhole(body: ChatBody): boolean {
  const text = promptText(body);
  return !text.includes(MULTI_TOOL_MARKER) || (text.includes(FILE_MARKER) && text.includes(KNOWLEDGE_MARKER));
}

function chunk(id: string, delta: Record<string, unknown>, finishReason: string | null): string {
  return `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: MOCK_MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })}\n\n`;
}

/** The frames of one stream, built once: every stream sends the same bytes. */
const STREAM_FRAMES: readonly string[] = [
  chunk('chatcmpl-mock', { role: 'assistant', content: '' }, null),
  ...MOCK_PIECES.map((piece) => chunk('chatcmpl-mock', { content: piece }, null)),
  chunk('chatcmpl-mock', {}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1_700_000_000, model: MOCK_MODEL, choices: [], usage: USAGE })}\n\ndata: [DONE]\n\n`,
];

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-mock',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: MOCK_MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: MOCK_ANSWER }, finish_reason: 'stop' }],
  usage: USAGE,
});

let paced = false;

function stream(response: http.ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (!paced) {
    response.end(STREAM_FRAMES.join(''));
    return;
  }
  // The role frame at once, then one content delta per interval, then the ending with the last delta's timer.
  response.write(STREAM_FRAMES[0]);
  let next = 1;
  const timer = setInterval(() => {
    if (response.destroyed) {
      clearInterval(timer);
      return;
    }
    const frame = STREAM_FRAMES[next] ?? '';
    next += 1;
    if (next < STREAM_FRAMES.length - 2) {
      response.write(frame);
      return;
    }
    clearInterval(timer);
    response.end(frame + STREAM_FRAMES.slice(next).join(''));
  }, MOCK_DELTA_INTERVAL_MS);
  response.on('close', () => clearInterval(timer));
}

function answer(request: http.IncomingMessage, response: http.ServerResponse, raw: string): void {
  if (request.url === '/control') {
    paced = (JSON.parse(raw) as { paced?: boolean }).paced === true;
    response.writeHead(204).end();
    return;
  }
  if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  const body = JSON.parse(raw) as ChatBody;
  if (!promptIsWhole(body)) {
    response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"the prompt lacks its context"}}');
    return;
  }
  if (body.stream === true) {
    stream(response);
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
}

const server = http.createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    try {
      answer(request, response, Buffer.concat(parts).toString('utf8'));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad request"}}');
    }
  });
});
server.maxConnections = 10_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
