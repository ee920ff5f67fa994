/**
 * Benchmark of scaling out: chat throughput (requests per second, p50/p95/p99 latency) through a
 * round-robin load balancer (test/support/round-robin-proxy.ts) in front of 1, 2 and 3 Merino
 * processes on one PostgreSQL, each with its own DATA_DIR, at one fixed concurrency. The model is
 * the fake OpenAI server answering at once, so the figures are Merino's own cost per chat request
 * (authentication, assistant, rate limits and usage log in the store, the provider call), not a
 * model's. It prints the machine's cores with the figures: processes beyond the cores only share
 * them. Upload and download throughput per storage driver is bench/blob-storage-throughput.bench.ts.
 *
 *   npx vitest run --config vitest.bench.config.ts bench/scale-out-throughput.bench.ts
 *   (REQUESTS=2000 CONCURRENCY=24 to change the load)
 *
 * Figures are printed, never asserted on; the only check is that no request failed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAiServer } from '../test/fakes/fake-openai-server.js';
import { startRoundRobinProxy } from '../test/support/round-robin-proxy.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { createTestDatabase, TEST_DIALECTS } from '../test/support/test-databases.js';
import { loginAsAdmin, request } from '../test/support/test-server.js';
import { measure, printFigures, type Figures } from './support/measure.js';

const REQUESTS = Number(process.env.REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 24);
/** Calls before each measured run, so that every process has warmed up its code and its pool. */
const WARM_UP_REQUESTS = 200;
const FLEET_SIZES = [1, 2, 3] as const;

async function chatThroughput(): Promise<Figures[]> {
  const database = await createTestDatabase('postgres');
  const provider = await startFakeOpenAiServer();
  provider.setResponder(() => ({ text: 'Basalt cools quickly at the surface.' }));
  const processes: ServerProcess[] = [];
  const folders: string[] = [];
  try {
    for (let index = 0; index < Math.max(...FLEET_SIZES); index += 1) {
      const folder = await mkdtemp(path.join(os.tmpdir(), 'merino-bench-fleet-'));
      folders.push(folder);
      processes.push(
        await startServerProcess(database, {
          DATA_DIR: folder,
          MERINO_SECRET_KEY: 'one secret key for the whole fleet',
          OPENAI_API_KEY: 'sk-bench',
          OPENAI_BASE_URL: provider.baseUrl,
          // The limits are per user; one user sends every request here.
          CHAT_REQUESTS_PER_USER_MAX: '1000000',
          CHAT_REQUESTS_PER_API_KEY_MAX: '1000000',
        }),
      );
    }
    const token = await loginAsAdmin(processes[0]!);
    const assistant = await request(processes[0]!, 'POST', '/api/assistants', {
      token,
      body: { name: 'Geology tutor', system_prompt: 'You teach geology.', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    if (assistant.status !== 201) throw new Error(`creating the assistant failed: ${assistant.text}`);
    const body = {
      model: `lamb_assistant.${assistant.body.id}`,
      messages: [{ role: 'user', content: 'How does basalt form?' }],
    };

    const rows: Figures[] = [];
    for (const size of FLEET_SIZES) {
      const proxy = await startRoundRobinProxy(processes.slice(0, size).map((started) => started.baseUrl));
      try {
        const chat = async (): Promise<number> => (await request(proxy, 'POST', '/v1/chat/completions', { token, body })).status;
        await measure('warm-up', WARM_UP_REQUESTS, CONCURRENCY, chat);
        rows.push(await measure(`POST /v1/chat/completions, ${size} process${size === 1 ? '' : 'es'}`, REQUESTS, CONCURRENCY, chat));
      } finally {
        await proxy.close();
      }
    }
    return rows;
  } finally {
    for (const started of processes) await started.kill();
    await provider.close();
    await database.drop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  }
}

describe.runIf(TEST_DIALECTS.includes('postgres'))('chat throughput scaling out on PostgreSQL', () => {
  it('serves the load through 1, 2 and 3 processes without a failed request', async () => {
    const loadBefore = os.loadavg()[0]!.toFixed(2);
    const rows = await chatThroughput();
    const loadAfter = os.loadavg()[0]!.toFixed(2);
    printFigures(
      `${os.availableParallelism()} cores, load average ${loadBefore} before the run and ${loadAfter} after (other work on the machine counts); ` +
        `${REQUESTS} requests, ${CONCURRENCY} concurrent, through a round-robin proxy, fake model answering at once`,
      rows,
    );
    expect(rows.map((row) => [row.name, row.errors])).toEqual(rows.map((row) => [row.name, 0]));
  });
});
