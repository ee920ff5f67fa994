/**
 * A test run of CASES cases at the default concurrency (TEST_RUN_CONCURRENCY, 4) through the real
 * pipeline (docs/assistant-tests.md), on SQLite and PostgreSQL: a fake model that answers every
 * call after MODEL_DELAY_MS, one turn per case, graded by two mechanical expectations (no judge,
 * so the model's own time is known exactly). Prints cases per minute and the overhead over the
 * model's own time: the wall time of the run minus what the model calls alone would take at
 * that concurrency (ceil(CASES / 4) × MODEL_DELAY_MS). Prints figures; never passes or fails on them.
 *
 *   npx vitest run --config vitest.bench.config.ts bench/assistant-test-run.bench.ts   (CASES=100 MODEL_DELAY_MS=200)
 */
import { describe, expect, it } from 'vitest';
import { startFakeOpenAiServer } from '../test/fakes/fake-openai-server.js';
import { TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { milliseconds, wholeNumberSetting } from './support/measure.js';

const CASES = wholeNumberSetting('CASES', 100, 1);
const MODEL_DELAY_MS = wholeNumberSetting('MODEL_DELAY_MS', 200, 0);
const DEFAULT_CONCURRENCY = 4;

async function benchmark(dialect: Dialect): Promise<void> {
  const provider = await startFakeOpenAiServer();
  provider.setResponder(() => ({ text: 'Cells divide by mitosis, and the nucleus splits in two.', delayMs: MODEL_DELAY_MS }));
  const server = await startTestServer(dialect, {
    environment: {
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      TEST_RUN_EVENTS_POLL_MS: '50',
      TEST_CASES_PER_ASSISTANT_MAX: String(Math.max(CASES, 200)),
    },
  });
  try {
    const adminToken = await loginAsAdmin(server);
    const owner = await createUser(server, adminToken, { email: 'bench-owner@merino.test', role: 'creator' });
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: owner.token,
      body: { name: 'Bench tutor', system_prompt: 'You teach biology.', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    const base = `/api/assistants/${assistant.body.id}`;
    for (let index = 0; index < CASES; index += 1) {
      const created = await request(server, 'POST', `${base}/tests`, {
        token: owner.token,
        body: {
          name: `Case ${index}`,
          kind: 'single_turn',
          turns: [`Question ${index}: how do cells divide?`],
          expectations: [
            { type: 'contains', phrases: ['mitosis'] },
            { type: 'max_length', characters: 500 },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
    }
    const started = performance.now();
    const run = await request(server, 'POST', `${base}/test-runs`, { token: owner.token, body: { cases: 'all' } });
    expect(run.status, run.text).toBe(201);
    // Followed over its event stream, as the page does: the stream ends with the run.
    const events = await fetch(`${server.baseUrl}${base}/test-runs/${run.body.id}/events`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    const streamed = await events.text();
    const wall = performance.now() - started;
    const finished = (await request(server, 'GET', `${base}/test-runs/${run.body.id}`, { token: owner.token })).body;
    expect(finished.status).toBe('completed');
    expect(finished.verdicts.pass).toBe(CASES);
    const modelOwnTime = Math.ceil(CASES / DEFAULT_CONCURRENCY) * MODEL_DELAY_MS;
    const overhead = wall - modelOwnTime;
    console.log(
      [
        `assistant test run on ${dialect}: ${CASES} cases, concurrency ${DEFAULT_CONCURRENCY}, model delay ${MODEL_DELAY_MS} ms`,
        `  wall time                  ${milliseconds(wall)} ms`,
        `  cases per minute           ${((CASES / wall) * 60_000).toFixed(0)}`,
        `  model's own time           ${milliseconds(modelOwnTime)} ms`,
        `  overhead over the model    ${milliseconds(overhead)} ms (${((overhead / modelOwnTime) * 100).toFixed(1)} %, ${milliseconds((overhead * DEFAULT_CONCURRENCY) / CASES)} ms per case per slot)`,
        `  progress events streamed   ${streamed.split('data: ').length - 1}`,
        `  model calls                ${provider.requests.length}`,
      ].join('\n'),
    );
  } finally {
    await server.services.testRuns.idle();
    await server.close();
    await provider.close();
  }
}

describe.each(TEST_DIALECTS)('a test run of many cases on %s', (dialect) => {
  it('prints cases per minute and the overhead over the model', async () => {
    await benchmark(dialect);
  });
});
