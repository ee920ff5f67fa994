/**
 * Sends the API fuzz suite's generated requests to the test server on 127.0.0.1, a bounded number
 * at a time, and records what came back: status, content type and body text, or the transport
 * error when the connection was dropped. Requests cut short on the wire go over a raw socket,
 * since no HTTP client sends fewer bytes than it announces. A stream that follows (a GET answered
 * with server-sent events) is read only to its first chunk, then left.
 */
import net from 'node:net';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import type { FuzzCase } from './fuzz-cases.js';

/** A request that takes longer than this is reported as stalled. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How long a half-closed raw socket may wait for the server's answer or close. */
const RAW_SOCKET_WAIT_MS = 5_000;
/** Only the start of a response body is kept: enough to parse any error JSON and show it. */
const KEPT_BODY_CHARACTERS = 262_144;

export interface FuzzOutcome {
  fuzzCase: FuzzCase;
  /** Undefined when no response came (see `transportError`). */
  status?: number;
  contentType?: string;
  text?: string;
  /** Why no response came: a dropped connection, a reset, a stall. */
  transportError?: string;
  /** A raw-socket request the server closed without answering, which is a fine answer to a cut-off body. */
  closedWithoutAnswer?: boolean;
  /** From sending to the end of the answer; printed for the slowest requests, never asserted. */
  milliseconds?: number;
}

/**
 * The body as text. A GET answered with an event stream follows something (a knowledge base's jobs)
 * and never ends by itself, so only what it sent first is read before hanging up, as a page that
 * leaves does; the server must then free the stream. Every other body is read to its end.
 */
async function bodyTextOf(fuzzCase: FuzzCase, body: Dispatcher.ResponseData['body'], contentType: string): Promise<string> {
  if (fuzzCase.method !== 'GET' || !contentType.includes('text/event-stream')) return body.text();
  for await (const chunk of body) {
    body.destroy();
    return Buffer.from(chunk as Uint8Array).toString('utf8');
  }
  return '';
}

async function sendOverHttp(baseUrl: string, dispatcher: Agent, fuzzCase: FuzzCase): Promise<FuzzOutcome> {
  try {
    const response = await undiciRequest(`${baseUrl}${fuzzCase.url}`, {
      method: fuzzCase.method as 'GET',
      headers: fuzzCase.headers,
      body: fuzzCase.body,
      dispatcher,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
      // Also bounds the time a request waits for a free connection, which the two timeouts above do not.
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const contentType = response.headers['content-type'];
    const text = await bodyTextOf(fuzzCase, response.body, String(contentType ?? ''));
    return {
      fuzzCase,
      status: response.statusCode,
      contentType: Array.isArray(contentType) ? contentType.join(', ') : contentType,
      text: text.slice(0, KEPT_BODY_CHARACTERS),
    };
  } catch (error) {
    const failure = error as Error & { code?: string; cause?: Error & { code?: string } };
    return {
      fuzzCase,
      transportError: `${failure.name} ${failure.code ?? ''} ${failure.message}${failure.cause ? ` (cause: ${failure.cause.code ?? ''} ${failure.cause.message})` : ''}`,
    };
  }
}

/** Announces the whole body's length, sends half of it, then half-closes the socket and waits for an answer. */
function sendCutShort(baseUrl: string, fuzzCase: FuzzCase): Promise<FuzzOutcome> {
  const { hostname, port } = new URL(baseUrl);
  const body = typeof fuzzCase.body === 'string' ? Buffer.from(fuzzCase.body) : Buffer.from(fuzzCase.body ?? new Uint8Array());
  const head = [
    `${fuzzCase.method} ${fuzzCase.url} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Content-Length: ${body.length + 100}`,
    'Connection: close',
  ];
  for (const [name, value] of Object.entries(fuzzCase.headers)) head.push(`${name}: ${value}`);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port) });
    let settled = false;
    const finish = (outcome: Omit<FuzzOutcome, 'fuzzCase'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ fuzzCase, ...outcome });
    };
    const answered = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const statusLine = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (statusLine === null) {
        finish({ closedWithoutAnswer: true });
        return;
      }
      const separator = text.indexOf('\r\n\r\n');
      const contentType = /\r\ncontent-type: ([^\r\n]*)/i.exec(text)?.[1];
      finish({
        status: Number(statusLine[1]),
        contentType,
        text: separator === -1 ? '' : text.slice(separator + 4, separator + 4 + KEPT_BODY_CHARACTERS),
      });
    };
    const timer = setTimeout(() => (chunks.length > 0 ? answered() : finish({ closedWithoutAnswer: true })), RAW_SOCKET_WAIT_MS);
    socket.on('connect', () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.end(body.subarray(0, Math.floor(body.length / 2)));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', answered);
    // A reset after the client half-closed is how a server may drop a request it cannot finish reading.
    socket.on('error', (error: Error & { code?: string }) =>
      chunks.length > 0
        ? answered()
        : finish({
            closedWithoutAnswer: error.code === 'ECONNRESET' || error.code === 'EPIPE',
            ...(error.code !== 'ECONNRESET' && error.code !== 'EPIPE' && { transportError: `${error.code} ${error.message}` }),
          }),
    );
  });
}

/** Sends every case, at most `concurrency` at once, and returns the outcomes in the cases' order. */
export async function sendAll(baseUrl: string, cases: readonly FuzzCase[], concurrency: number): Promise<FuzzOutcome[]> {
  const dispatcher = new Agent({ connections: concurrency, pipelining: 1 });
  const outcomes: FuzzOutcome[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next;
      next += 1;
      const fuzzCase = cases[index]!;
      const started = performance.now();
      const outcome =
        fuzzCase.truncatedOnTheWire === true ? await sendCutShort(baseUrl, fuzzCase) : await sendOverHttp(baseUrl, dispatcher, fuzzCase);
      outcome.milliseconds = Math.round(performance.now() - started);
      outcomes[index] = outcome;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await dispatcher.close();
  }
  return outcomes;
}
