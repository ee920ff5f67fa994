/**
 * What each model connector adds to a call (issue 34): the anthropic and gemini connectors (their
 * official SDKs) beside the openai connector (a lean POST), each against its fake over loopback,
 * and banana_img generating an image through OpenAI's images API (the official SDK), kept by an
 * image store that holds nothing, so only the connector's own work is timed.
 * For every connector, RUNS short streamed answers are read two ways: directly, one fetch to the
 * fake with the body the connector would send, read to its end; and through the connector's own
 * `complete()`, to its `finish` event. The added time is the difference of the medians (and of the
 * 95th percentiles). Both run in this process, so they share one clock and one event loop.
 *
 *   npm run bench -- bench/connector-overhead.bench.ts
 *
 * Prints, never asserts on time.
 */
import { describe, expect, it } from 'vitest';
import anthropic from '../src/connectors/anthropic.js';
import bananaImage from '../src/connectors/banana-img.js';
import gemini from '../src/connectors/gemini.js';
import openai from '../src/connectors/openai.js';
import { serverPost } from '../src/outbound/outbound-post.js';
import { serverFetch, type ConnectorDefinition, type ImageStore, type ProviderSettings } from '../src/pipeline/plugin-api.js';
import { startFakeAnthropicServer } from '../test/fakes/fake-anthropic-server.js';
import { startFakeGeminiServer } from '../test/fakes/fake-gemini-server.js';
import { startFakeOpenAiServer } from '../test/fakes/fake-openai-server.js';
import { ascending, milliseconds, percentile, printTable } from './support/measure.js';

const RUNS = 200;
const WARM_UP_RUNS = 20;
const RESPONSE_BYTES_MAXIMUM = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
const ANSWER = 'Photosynthesis turns light, water and carbon dioxide into sugar and oxygen.';
const QUESTION = 'What is photosynthesis?';

interface Subject {
  name: string;
  connector: ConnectorDefinition;
  provider: ProviderSettings;
  model: string;
  /** Queues one scripted answer on the fake. */
  enqueue(): void;
  /** One request straight to the fake, as the connector would make it, read to the end. */
  direct(): Promise<void>;
  /** Where an image connector keeps what it generated. */
  images?: ImageStore;
}

async function readToEnd(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

async function throughConnector(subject: Subject): Promise<void> {
  let finished = false;
  const events = subject.connector.complete({
    model: subject.model,
    messages: [
      { role: 'system', content: 'You teach biology.' },
      { role: 'user', content: QUESTION },
    ],
    parameters: {},
    provider: subject.provider,
    signal: new AbortController().signal,
    timeoutMilliseconds: TIMEOUT_MS,
    ...(subject.images && { images: subject.images }),
  });
  for await (const event of events) if (event.type === 'finish') finished = true;
  expect(finished).toBe(true);
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** Alternates direct and connector calls, so drift on a shared machine falls on both alike. */
async function measure(subject: Subject): Promise<{ direct: number[]; connector: number[] }> {
  const direct: number[] = [];
  const connector: number[] = [];
  for (let run = 0; run < WARM_UP_RUNS + RUNS; run += 1) {
    subject.enqueue();
    const directTime = await timed(() => subject.direct());
    subject.enqueue();
    const connectorTime = await timed(() => throughConnector(subject));
    if (run < WARM_UP_RUNS) continue;
    direct.push(directTime);
    connector.push(connectorTime);
  }
  return { direct: ascending(direct), connector: ascending(connector) };
}

function jsonPost(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('connector overhead', () => {
  it('prints the time each connector adds over a direct call to its fake', async () => {
    const openaiFake = await startFakeOpenAiServer();
    const anthropicFake = await startFakeAnthropicServer();
    const geminiFake = await startFakeGeminiServer();
    const server = { fetch: serverFetch, post: serverPost(RESPONSE_BYTES_MAXIMUM) };
    const subjects: Subject[] = [
      {
        name: 'openai',
        connector: openai,
        provider: { ...server, baseUrl: openaiFake.baseUrl, apiKey: 'sk-bench' },
        model: 'gpt-4o-mini',
        enqueue: () => openaiFake.enqueue({ text: ANSWER }),
        direct: async () =>
          readToEnd(
            await jsonPost(
              `${openaiFake.baseUrl}/chat/completions`,
              { authorization: 'Bearer sk-bench' },
              { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: QUESTION }] },
            ),
          ),
      },
      {
        name: 'anthropic',
        connector: anthropic,
        provider: { ...server, baseUrl: anthropicFake.baseUrl, apiKey: 'sk-ant-bench' },
        model: 'claude-haiku-4-5',
        enqueue: () => anthropicFake.enqueue({ text: ANSWER }),
        direct: async () =>
          readToEnd(
            await jsonPost(
              `${anthropicFake.baseUrl}/v1/messages`,
              { 'x-api-key': 'sk-ant-bench', 'anthropic-version': '2023-06-01' },
              { model: 'claude-haiku-4-5', max_tokens: 4096, stream: true, messages: [{ role: 'user', content: QUESTION }] },
            ),
          ),
      },
      {
        name: 'gemini',
        connector: gemini,
        provider: { ...server, baseUrl: geminiFake.baseUrl, apiKey: 'AIza-bench' },
        model: 'gemini-2.5-flash',
        enqueue: () => geminiFake.enqueue({ text: ANSWER }),
        direct: async () =>
          readToEnd(
            await jsonPost(
              `${geminiFake.baseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
              { 'x-goog-api-key': 'AIza-bench' },
              { contents: [{ role: 'user', parts: [{ text: QUESTION }] }] },
            ),
          ),
      },
      {
        name: 'banana_img',
        connector: bananaImage,
        provider: { ...server, baseUrl: openaiFake.baseUrl, apiKey: 'sk-bench', imageProvider: 'openai' },
        model: 'gpt-image-1',
        // The fake answers every image request with a 1×1 PNG; nothing is queued.
        enqueue: () => undefined,
        images: { bytesMaximum: 1_048_576, timeoutMilliseconds: TIMEOUT_MS, save: () => Promise.resolve({ url: '/api/files/1/content' }) },
        direct: async () =>
          readToEnd(
            await jsonPost(
              `${openaiFake.baseUrl}/images/generations`,
              { authorization: 'Bearer sk-bench' },
              { model: 'gpt-image-1', prompt: QUESTION },
            ),
          ),
      },
    ];
    try {
      const rows: string[][] = [];
      for (const subject of subjects) {
        const { direct, connector } = await measure(subject);
        const [directMedian, connectorMedian] = [percentile(direct, 0.5), percentile(connector, 0.5)];
        const [directTail, connectorTail] = [percentile(direct, 0.95), percentile(connector, 0.95)];
        rows.push([
          subject.name,
          milliseconds(directMedian),
          milliseconds(connectorMedian),
          milliseconds(connectorMedian - directMedian),
          milliseconds(connectorTail - directTail),
        ]);
      }
      printTable(
        `Connector overhead: ${RUNS} short streamed answers each (${WARM_UP_RUNS} warm-up runs dropped), milliseconds`,
        [
          { label: 'connector', width: 10 },
          { label: 'direct p50', width: 11 },
          { label: 'connector p50', width: 14 },
          { label: 'added p50', width: 10 },
          { label: 'added p95', width: 10 },
        ],
        rows,
      );
    } finally {
      await Promise.all([openaiFake.close(), anthropicFake.close(), geminiFake.close()]);
    }
  });
});
