// Shared plumbing for the fake LLM provider servers: bounded body reading, request recording,
// abortable waits, disconnect accounting and a listen/close lifecycle that can never hang a test run.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const LOOPBACK_ADDRESS = '127.0.0.1';

/** Larger bodies are refused with 413 so a runaway client cannot exhaust test memory. */
export const BODY_BYTES_MAXIMUM = 8 * 1024 * 1024;
/** Oldest entries are dropped beyond this, so a long-lived fake cannot grow without limit. */
export const RECORDED_REQUESTS_MAXIMUM = 1_000;
/** Scripted delays are clamped to this, so a typo in a test cannot stall the whole suite. */
export const SCRIPTED_WAIT_MS_MAXIMUM = 60_000;
export const HEADERS_TIMEOUT_MS = 10_000;
/** Covers receiving the request only; streamed responses are bounded by the scripted waits instead. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Above the longest scripted wait, so the socket is not cut while a fake is deliberately silent. */
export const IDLE_SOCKET_TIMEOUT_MS = SCRIPTED_WAIT_MS_MAXIMUM + 10_000;
export const CLOSE_TIMEOUT_MS = 5_000;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON; the raw text when the body was not JSON; undefined when there was no body. */
  body: any;
  /** Milliseconds since the epoch. */
  receivedAt: number;
}

export type BodyReadResult =
  | { kind: 'empty' }
  | { kind: 'json'; value: unknown; text: string }
  | { kind: 'invalid'; text: string; reason: string }
  | { kind: 'too-large' }
  | { kind: 'aborted' };

export function readRequestBody(request: http.IncomingMessage): Promise<BodyReadResult> {
  return new Promise((resolve) => {
    const pieces: Buffer[] = [];
    let receivedBytes = 0;
    let overflowed = false;
    // Keep draining after an overflow rather than destroying the socket, so the 413 can still be delivered.
    request.on('data', (piece: Buffer) => {
      if (overflowed) return;
      receivedBytes += piece.length;
      if (receivedBytes > BODY_BYTES_MAXIMUM) {
        overflowed = true;
        pieces.length = 0;
        return;
      }
      pieces.push(piece);
    });
    request.on('end', () => {
      if (overflowed) {
        resolve({ kind: 'too-large' });
        return;
      }
      const text = Buffer.concat(pieces).toString('utf8');
      if (text.trim() === '') {
        resolve({ kind: 'empty' });
        return;
      }
      try {
        resolve({ kind: 'json', value: JSON.parse(text), text });
      } catch (error) {
        resolve({ kind: 'invalid', text, reason: error instanceof Error ? error.message : String(error) });
      }
    });
    // A promise settles once, so these only matter when the client vanished before 'end'.
    request.on('error', () => resolve({ kind: 'aborted' }));
    request.on('close', () => resolve({ kind: 'aborted' }));
  });
}

export function recordedBody(result: BodyReadResult): unknown {
  switch (result.kind) {
    case 'json':
      return result.value;
    case 'invalid':
      return result.text;
    default:
      return undefined;
  }
}

/** Reads a request's body and records the request, as a fake does before it answers anything. */
export async function readAndRecord(
  request: http.IncomingMessage,
  requests: RecordedRequest[],
): Promise<{ url: URL; bodyResult: BodyReadResult; recorded: RecordedRequest }> {
  const url = new URL(request.url ?? '/', 'http://fake.invalid');
  const bodyResult = await readRequestBody(request);
  const recorded: RecordedRequest = {
    method: request.method ?? 'GET',
    path: url.pathname,
    headers: { ...request.headers },
    body: recordedBody(bodyResult),
    receivedAt: Date.now(),
  };
  appendBounded(requests, recorded);
  return { url, bodyResult, recorded };
}

export function appendBounded<Entry>(entries: Entry[], entry: Entry): void {
  entries.push(entry);
  while (entries.length > RECORDED_REQUESTS_MAXIMUM) entries.shift();
}

export function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves true after the wait, or false as soon as the signal aborts (the client left or the fake is closing). */
export function pause(milliseconds: number | undefined, signal: AbortSignal): Promise<boolean> {
  const clamped = Math.min(Math.max(milliseconds ?? 0, 0), SCRIPTED_WAIT_MS_MAXIMUM);
  if (signal.aborted) return Promise.resolve(false);
  if (clamped === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, clamped);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** How a scripted stream goes wrong once it has sent so many chunks (the fakes' replies carry these). */
export interface StreamFaults {
  /** Destroy the socket, as a provider that dies mid-answer. */
  dropAfterChunks?: number;
  /** Send a line that is not JSON, then end. */
  malformedAfterChunks?: number;
  /** End the response cleanly, without the stream's last event. */
  endAfterChunks?: number;
  /** Send nothing more until the client gives up (or the fake closes). */
  hangAfterChunks?: number;
}

/** Where the chunk about to be sent stands, and how its wire writes a line that is not JSON. */
export interface StreamPosition {
  index: number;
  response: http.ServerResponse;
  exchange: Exchange;
  malformedLine: string;
}

/** Acts out the fault the reply scripts for the chunk at `position.index`, if any; true when the stream is over. */
export async function actOutStreamFault(faults: StreamFaults, position: StreamPosition): Promise<boolean> {
  const { index, response, exchange } = position;
  const reached = (after: number | undefined) => after !== undefined && index >= after;
  if (reached(faults.dropAfterChunks)) {
    exchange.markClosedByServer();
    response.destroy();
  } else if (reached(faults.malformedAfterChunks)) response.end(position.malformedLine);
  else if (reached(faults.endAfterChunks)) response.end();
  else if (reached(faults.hangAfterChunks)) await pause(Number.POSITIVE_INFINITY, exchange.signal);
  else return false;
  return true;
}

/** Resolves once the bytes are handed to the socket, so a following destroy cannot swallow them. */
export function writeFlushed(response: http.ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (response.destroyed) {
      resolve();
      return;
    }
    response.write(text, () => resolve());
  });
}

export function sendJson(response: http.ServerResponse, status: number, body: unknown, extraHeaders: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...extraHeaders,
  });
  response.end(text);
}

export interface Exchange {
  /** Aborts when the client disconnects or the fake shuts down, so waits and streams stop promptly. */
  signal: AbortSignal;
  /** Call before the fake itself destroys the socket, so that is not mistaken for a client disconnect. */
  markClosedByServer(): void;
}

/**
 * Watches one response: if its connection closes before the response finished and neither the
 * fake nor its shutdown caused it, the client went away, which is what tests of cancellation assert.
 */
export function watchExchange(response: http.ServerResponse, shutdownSignal: AbortSignal, onClientDisconnect: () => void): Exchange {
  const controller = new AbortController();
  let closedByServer = false;
  const onShutdown = (): void => controller.abort();
  shutdownSignal.addEventListener('abort', onShutdown, { once: true });
  response.on('close', () => {
    shutdownSignal.removeEventListener('abort', onShutdown);
    if (!response.writableFinished && !closedByServer && !shutdownSignal.aborted) onClientDisconnect();
    controller.abort();
  });
  return {
    signal: controller.signal,
    markClosedByServer: () => {
      closedByServer = true;
    },
  };
}

/** How a fake answers its model list (`GET /v1/models`, Ollama's `GET /api/tags`); by default, its fixed models. */
export interface ScriptedModelList {
  /** The model ids to list instead of the fake's fixed ones. */
  models?: string[];
  /** Wait before the response headers; a wait past the client's time limit makes a slow provider. */
  delayMs?: number;
  /** Answer with this HTTP status and the provider's error body instead of the list. */
  status?: number;
  /** Answer 200 with a truncated JSON body. */
  malformed?: boolean;
}

export type RequestHandler = (request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal) => Promise<void>;

export interface LoopbackServer {
  /** e.g. http://127.0.0.1:41234, without a trailing slash. */
  origin: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(handler: RequestHandler): Promise<LoopbackServer> {
  const shutdown = new AbortController();
  // Every open request listens for shutdown; hundreds at once are expected under load, not a leak.
  setMaxListeners(0, shutdown.signal);
  const server = http.createServer((request, response) => {
    handler(request, response, shutdown.signal).catch(() => {
      // The handler reports its own errors in its provider's shape; this only stops a hung exchange.
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('fake server handler failed');
      } else {
        response.destroy();
      }
    });
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.setTimeout(IDLE_SOCKET_TIMEOUT_MS);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK_ADDRESS, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    origin: `http://${LOOPBACK_ADDRESS}:${address.port}`,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // Keep-alive sockets held by SDK clients would otherwise keep close() waiting.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Prompt-size heuristic of about four characters a token, enough for tests that check usage is plumbed through. */
export function estimateTokens(text: string): number {
  return Math.ceil(Array.from(text).length / 4);
}

/** Splits by code point (never inside a surrogate pair) into at most `count` nearly equal pieces. */
export function splitIntoPieces(text: string, count: number): string[] {
  const characters = Array.from(text);
  if (characters.length === 0) return [];
  const pieceCount = Math.max(1, Math.min(count, characters.length));
  const pieceLength = Math.ceil(characters.length / pieceCount);
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += pieceLength) {
    pieces.push(characters.slice(start, start + pieceLength).join(''));
  }
  return pieces;
}

export const EMBEDDING_DIMENSIONS = 64;

/**
 * A unit-length vector derived only from the input text: each word (lower-cased, a plural `s`
 * dropped) adds to a dimension chosen by its hash, so texts that share words point the same way
 * and cosine similarity behaves like a real embedding model's, topically. Equal inputs give equal
 * vectors; a text without words gets a hash-derived vector. Values are rounded to float32 so the
 * float and base64 encodings of the OpenAI endpoint decode to exactly the same numbers.
 */
export function deterministicEmbedding(input: string): number[] {
  const values: number[] = Array.from({ length: EMBEDDING_DIMENSIONS }, () => 0);
  const words = input.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const stem = word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
    const digest = createHash('sha256').update(stem).digest();
    values[digest.readUInt16BE(0) % EMBEDDING_DIMENSIONS]! += digest[2]! & 1 ? 1 : -1;
  }
  if (words.length === 0 || !values.some((value) => value !== 0)) {
    const digest = createHash('sha256').update(input).digest();
    for (let index = 0; index < EMBEDDING_DIMENSIONS; index += 1) values[index] = digest[index % digest.length]! / 255 - 0.5;
  }
  const length = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return values.map((value) => Math.fround(value / length));
}
