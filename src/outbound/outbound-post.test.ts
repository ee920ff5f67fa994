// Proves a provider POST over real loopback HTTP sends its bytes whole with their length, and lets
// go of them once sent: a stream's answer can last minutes, and a long prompt held for all of them
// by every stream in flight is memory the server does not need.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverPost } from './outbound-post.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const PROMPT_BYTES = 2_000_000;

interface Received {
  length: string | undefined;
  chunked: boolean;
  bytes: number;
}

let server: http.Server;
let url: string;
let received: Received | undefined;
/** Ends the answer the server holds open. */
let finishAnswer: () => void = () => undefined;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
    request.on('end', () => {
      received = { length: request.headers['content-length'], chunked: request.headers['transfer-encoding'] !== undefined, bytes };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
      finishAnswer = () => response.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

describe('a provider POST', () => {
  it('sends the body whole, with its length, and lets go of it while the answer still streams', async () => {
    const post = serverPost(1_000_000);
    const prompt = { collected: false };
    const registry = new FinalizationRegistry(() => (prompt.collected = true));
    const answer = await (async () => {
      const body = Buffer.alloc(PROMPT_BYTES, 'a');
      registry.register(body, 'prompt');
      return post({ url, headers: { 'content-type': 'application/json' }, body, signal: new AbortController().signal });
    })();
    const chunks = answer.body[Symbol.asyncIterator]();
    expect(Buffer.from((await chunks.next()).value as Uint8Array).toString()).toBe('data: first\n\n');
    expect(received).toEqual({ length: String(PROMPT_BYTES), chunked: false, bytes: PROMPT_BYTES });

    for (let attempt = 0; attempt < 20 && !prompt.collected; attempt += 1) {
      collectGarbage();
      await pause(20);
    }
    expect(prompt.collected).toBe(true);

    finishAnswer();
    const rest: string[] = [];
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) rest.push(Buffer.from(next.value).toString());
    expect(rest.join('')).toBe('data: [DONE]\n\n');
  });
});
