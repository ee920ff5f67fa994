/**
 * What the token and cost quota check adds to a chat request (docs/quotas.md), on SQLite and on
 * PostgreSQL: `POST /v1/chat/completions` to a bypass assistant in an organization with no limits
 * next to the same in an organization with every token and cost limit set (far above the load,
 * so none refuses) and an assistant cost limit. The limited organization's month holds
 * ROLL_UP_ROWS rows of the daily roll-up (a busy month: many people, days, assistants), which
 * each admission sums. Sequential calls show the added latency; concurrent ones, the admissions
 * taking turns under the organization's lock. Prints figures; never passes or fails on them.
 *
 *   npm run bench -- bench/quota-check.bench.ts      (REQUESTS=500 CONCURRENCY=8 ROLL_UP_ROWS=3000)
 */
import { describe, expect, it } from 'vitest';
import { addDailyUsage, type DailyUsageIncrement } from '../src/store/usage-daily-repository.js';
import { TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
import {
  ascending,
  measure,
  milliseconds,
  percentile,
  printFigures,
  printTable,
  runPool,
  wholeNumberSetting,
  type Figures,
} from './support/measure.js';

const REQUESTS = wholeNumberSetting('REQUESTS', 500, 1);
const CONCURRENCY = wholeNumberSetting('CONCURRENCY', 8, 1);
const ROLL_UP_ROWS = wholeNumberSetting('ROLL_UP_ROWS', 3_000);
const ROWS_PER_INSERT = 500;

/** A creator, their published bypass assistant, in a new organization. */
async function organizationWithAssistant(server: TestServer, adminToken: string, slug: string) {
  const organizationId = (await request(server, 'POST', '/api/organizations', { token: adminToken, body: { name: slug, slug } })).body
    .id as number;
  const creator = await createUser(server, adminToken, { email: `${slug}@merino.test`, role: 'creator', organization_id: organizationId });
  const created = await request(server, 'POST', '/api/assistants', {
    token: creator.token,
    body: { name: 'Echo', metadata: { connector: 'bypass', llm: 'debug-bypass' } },
  });
  await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: creator.token, body: { published: true } });
  return { organizationId, assistantId: created.body.id as number, token: creator.token };
}

/** A busy month of the organization in the roll-up: rows spread over the month's days so far and many people. */
async function seedMonth(server: TestServer, organizationId: number, assistantId: number): Promise<void> {
  const today = new Date();
  const days = today.getUTCDate();
  const rows: DailyUsageIncrement[] = Array.from({ length: ROLL_UP_ROWS }, (_, index) => ({
    day: `${today.toISOString().slice(0, 8)}${String((index % days) + 1).padStart(2, '0')}`,
    organization_id: organizationId,
    user_id: 1_000_000 + index,
    assistant_id: index % 4 === 0 ? assistantId : 2_000_000 + (index % 50),
    model: 'debug-bypass',
    requests: 3,
    prompt_tokens: 300,
    completion_tokens: 200,
    cost_micro_usd: 50,
  }));
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT)
    await addDailyUsage(server.store.db, rows.slice(start, start + ROWS_PER_INSERT));
}

/** Rounds each load is split into, alternating the two organizations. */
const ROUNDS = 10;

interface Round {
  latencies: number[];
  seconds: number;
  errors: number;
}

/** `count` calls, `concurrency` at once, each timed; a status of 400 or more is an error. */
async function round(count: number, concurrency: number, call: () => Promise<number>): Promise<Round> {
  const latencies: number[] = [];
  let errors = 0;
  const seconds = await runPool(count, concurrency, async () => {
    const begin = performance.now();
    if ((await call()) >= 400) errors += 1;
    latencies.push(performance.now() - begin);
  });
  return { latencies, seconds, errors };
}

/** One row of figures from the rounds of one kind: latencies pooled, seconds added. */
function merged(name: string, parts: readonly Round[]): Figures {
  const latencies = ascending(parts.flatMap((part) => part.latencies));
  const seconds = parts.reduce((sum, part) => sum + part.seconds, 0);
  const errors = parts.reduce((sum, part) => sum + part.errors, 0);
  return {
    name,
    requests: latencies.length,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    errors,
  };
}

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  const server = await startTestServer(dialect, {
    environment: { LOG_LEVEL: 'warn', CHAT_REQUESTS_PER_USER_MAX: '1000000', CHAT_REQUESTS_PER_API_KEY_MAX: '1000000' },
  });
  try {
    const adminToken = await loginAsAdmin(server);
    const free = await organizationWithAssistant(server, adminToken, `quota-bench-none-${dialect}`);
    const limited = await organizationWithAssistant(server, adminToken, `quota-bench-limits-${dialect}`);
    const limits = { tokens_per_month: 1e15, cost_per_month_usd: 1e9, tokens_per_user_per_day: 1e15 };
    await request(server, 'PATCH', `/api/organizations/${limited.organizationId}/settings`, { token: adminToken, body: { limits } });
    await request(server, 'PUT', `/api/assistants/${limited.assistantId}/quota`, {
      token: limited.token,
      body: { cost_per_month_usd: 1_000_000 },
    });
    await seedMonth(server, limited.organizationId, limited.assistantId);
    const chat = (target: { assistantId: number; token: string }) => async () =>
      (
        await request(server, 'POST', '/v1/chat/completions', {
          token: target.token,
          body: { model: `lamb_assistant.${target.assistantId}`, messages: [{ role: 'user', content: 'hello' }] },
        })
      ).status;
    // Warm both paths (caches, prepared statements, JIT) before measuring.
    await measure('warm-up', 50, 1, chat(free));
    await measure('warm-up', 50, 1, chat(limited));
    // Alternating the two, call by call (or batch by batch), so the machine's changing load falls on both alike.
    const rows: Figures[] = [];
    for (const [label, concurrency] of [['one at a time', 1] as const, [`${CONCURRENCY} at once`, CONCURRENCY] as const]) {
      const parts = { free: [] as Round[], limited: [] as Round[] };
      for (let index = 0; index < ROUNDS; index += 1) {
        parts.free.push(await round(Math.ceil(REQUESTS / ROUNDS), concurrency, chat(free)));
        parts.limited.push(await round(Math.ceil(REQUESTS / ROUNDS), concurrency, chat(limited)));
      }
      rows.push(merged(`chat, no limits, ${label}`, parts.free), merged(`chat, all limits set, ${label}`, parts.limited));
    }
    return rows;
  } finally {
    await server.close();
  }
}

describe.each(TEST_DIALECTS)('quota check on %s', (dialect) => {
  it('answers every chat, with and without quotas', async () => {
    const rows = await benchmark(dialect);
    printFigures(`${dialect}: ${REQUESTS} chat requests each, the limited month holding ${ROLL_UP_ROWS} roll-up rows`, rows, 40);
    const added = (without: Figures, withQuotas: Figures): string[] => [
      milliseconds(withQuotas.p50 - without.p50),
      milliseconds(withQuotas.p99 - without.p99),
    ];
    const [freeAlone, limitedAlone, freeTogether, limitedTogether] = rows as [Figures, Figures, Figures, Figures];
    printTable(
      `${dialect}: what the quota check adds`,
      [
        { label: 'load', width: 20 },
        { label: 'p50 ms', width: 8 },
        { label: 'p99 ms', width: 8 },
      ],
      [
        ['one at a time', ...added(freeAlone, limitedAlone)],
        [`${CONCURRENCY} at once`, ...added(freeTogether, limitedTogether)],
      ],
    );
    expect(rows.map((row) => [row.name, row.errors])).toEqual(rows.map((row) => [row.name, 0]));
  });
});
