/**
 * What `GET /api/usage` costs as the daily roll-up grows: ROLL_UP_ROWS rows of `usage_daily`
 * (default 1,000,000; set 10000000 for ten million) spread over a year, two organizations,
 * thousands of people, 200 assistants and 5 models, bulk-inserted straight into the table as the
 * roll-up of even more usage rows (each roll-up row sums several requests; the total is printed).
 * Then each report is asked REQUESTS times over real HTTP, one at a time, and its p50 and p99
 * printed: an organization admin's month and year by day, the month by user, a creator's month by
 * assistant, and a system admin's month by model. Prints figures; never passes or fails on them.
 *
 *   npm run bench -- bench/usage-aggregation.bench.ts      (ROLL_UP_ROWS=10000000 REQUESTS=200 BENCH_DIALECTS=sqlite,postgres)
 */
import { sql, type Insertable } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import type { UsageDailyTable } from '../src/store/schema.js';
import type { Dialect } from '../test/support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
import { measure, printFigures, wholeNumberSetting, type Figures } from './support/measure.js';

const ROLL_UP_ROWS = wholeNumberSetting('ROLL_UP_ROWS', 1_000_000, 1);
const REQUESTS = wholeNumberSetting('REQUESTS', 200, 1);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite').split(',') as Dialect[];
const DAYS = 365;
const ASSISTANTS = 200;
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', 'o4-mini', 'llama3.1:8b'];
/** Rows per INSERT: 9 columns each stays under SQLite's parameter limit. */
const ROWS_PER_STATEMENT = 1_000;
const LAST_DAY = Date.parse('2026-06-30T00:00:00Z');

function dayText(index: number): string {
  return new Date(LAST_DAY - index * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Row k of a day: user k mod users, assistant k mod 200, model ⌊k / users⌋ mod 5, so every key of
 * a day is distinct while fewer than five times `users` rows fall on it.
 */
async function fillRollUp(server: TestServer, organizations: [number, number]): Promise<{ seconds: number; usageRows: number }> {
  const started = performance.now();
  const rowsPerDay = Math.ceil(ROLL_UP_ROWS / DAYS);
  const users = Math.max(2_000, Math.ceil(rowsPerDay / MODELS.length));
  let usageRows = 0;
  let batch: Array<Insertable<UsageDailyTable>> = [];
  const flush = async () => {
    if (batch.length > 0) await server.store.db.insertInto('usage_daily').values(batch).execute();
    batch = [];
  };
  let written = 0;
  for (let day = 0; day < DAYS && written < ROLL_UP_ROWS; day += 1)
    for (let row = 0; row < rowsPerDay && written < ROLL_UP_ROWS; row += 1, written += 1) {
      const user = (row % users) + 1;
      const requests = 1 + ((row * 7 + day) % 20);
      usageRows += requests;
      batch.push({
        day: dayText(day),
        organization_id: organizations[user % 2]!,
        user_id: 1_000 + user,
        assistant_id: (row % ASSISTANTS) + 1,
        model: MODELS[Math.floor(row / users) % MODELS.length]!,
        requests,
        prompt_tokens: requests * 900,
        completion_tokens: requests * 250,
        cost_micro_usd: requests * 300,
      });
      if (batch.length === ROWS_PER_STATEMENT) await flush();
    }
  await flush();
  if (server.store.dialect === 'postgres') await sql`ANALYZE usage_daily`.execute(server.store.db);
  else await sql`ANALYZE`.execute(server.store.db);
  return { seconds: (performance.now() - started) / 1000, usageRows };
}

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  const server = await startTestServer(dialect, { environment: { LOG_LEVEL: 'warn', CHAT_REQUESTS_PER_USER_MAX: '1000000' } });
  try {
    const systemAdmin = await loginAsAdmin(server);
    const organizationA = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id as number;
    const organizationB = await insertOrganization(server.store.db, 'bench-b', 'Organization B');
    const admin = await createUser(server, systemAdmin, { email: 'bench-usage-admin@merino.test', role: 'admin' });
    const creator = await createUser(server, systemAdmin, { email: 'bench-usage-creator@merino.test', role: 'creator' });
    for (let index = 0; index < 3; index += 1)
      await request(server, 'POST', '/api/assistants', {
        token: creator.token,
        body: { name: `Bench ${index}`, metadata: { connector: 'bypass', llm: 'debug-bypass' } },
      });
    const filled = await fillRollUp(server, [organizationA, organizationB]);
    process.stdout.write(
      `\n${dialect}: ${ROLL_UP_ROWS.toLocaleString('en')} roll-up rows (the roll-up of ${filled.usageRows.toLocaleString('en')} usage rows) inserted in ${filled.seconds.toFixed(1)} s\n`,
    );
    const month = 'from=2026-06-01&to=2026-06-30';
    const cases: Array<[string, string, string]> = [
      ['org admin, 30 days by day', admin.token, `${month}&group_by=day`],
      ['org admin, 366 days by day', admin.token, 'from=2025-06-30&to=2026-06-30&group_by=day'],
      ['org admin, 30 days by user', admin.token, `${month}&group_by=user`],
      ['creator, 30 days by assistant', creator.token, `${month}&group_by=assistant`],
      ['system admin, 30 days by model', systemAdmin, `${month}&group_by=model`],
      ['org admin, 30 days by day, CSV', admin.token, `${month}&group_by=day&format=csv`],
    ];
    const figures: Figures[] = [];
    for (const [name, token, query] of cases) {
      // The first call after the long fill may meet a keep-alive socket the server has closed meanwhile: it is asked again.
      const probe = await request(server, 'GET', `/api/usage?${query}`, { token }).catch(() =>
        request(server, 'GET', `/api/usage?${query}`, { token }),
      );
      expect(probe.status, probe.text).toBe(200);
      figures.push(
        await measure(
          `${dialect}: ${name}`,
          REQUESTS,
          1,
          async () => (await request(server, 'GET', `/api/usage?${query}`, { token })).status,
        ),
      );
    }
    return figures;
  } finally {
    await server.close();
  }
}

describe('usage aggregation', () => {
  it('prints GET /api/usage p50 and p99 over a large roll-up', async () => {
    const figures: Figures[] = [];
    for (const dialect of DIALECTS) figures.push(...(await benchmark(dialect)));
    printFigures(
      `GET /api/usage over ${ROLL_UP_ROWS.toLocaleString('en')} roll-up rows (${REQUESTS} requests each, one at a time)`,
      figures,
    );
  });
});
