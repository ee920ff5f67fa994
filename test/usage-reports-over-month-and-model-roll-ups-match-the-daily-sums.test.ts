/**
 * Proves that reports read from the coarser roll-ups (by quarter, month, week, model, assistant
 * or person) give exactly what summing usage_daily's days gives, on both stores: for ranges that
 * start and end mid-month, span whole quarters, months or weeks, cross a year, or fall inside one
 * month; by each grouping; for the whole server, one organization, one person, one assistant and
 * a creator's own share (their requests and everyone's to their assistants, counted once). And
 * that 50 concurrent writers to one key leave every roll-up agreeing to the request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { addDailyUsage, type DailyUsageIncrement } from '../src/store/usage-daily-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const FIRST_DAY = Date.parse('2025-12-20T00:00:00Z');
const DAYS = 131; // to 2026-04-29
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'llama3.1:8b'];
const RANGES: Array<[string, string]> = [
  ['2025-12-20', '2026-03-10'],
  ['2026-01-01', '2026-01-31'],
  ['2026-01-15', '2026-02-14'],
  ['2025-12-31', '2026-02-01'],
  ['2026-02-28', '2026-03-01'],
  ['2026-01-01', '2026-02-28'],
  // Whole weeks (Monday to Sunday) but no whole month: around them, and exactly them.
  ['2026-01-07', '2026-01-27'],
  ['2026-01-05', '2026-01-25'],
  // A whole quarter: exactly it, with a day on each side, and with months, weeks and days around it.
  ['2026-01-01', '2026-03-31'],
  ['2025-12-31', '2026-04-01'],
  ['2025-12-20', '2026-04-29'],
];
const GROUPINGS = ['day', 'user', 'assistant', 'model'] as const;

type Sums = { requests: number; prompt_tokens: number; completion_tokens: number; cost_usd: number };

describe.each(TEST_DIALECTS)('usage reports over the month and model roll-ups on %s', (dialect) => {
  let server: TestServer;
  let systemAdmin: string;
  let creator: CreatedUser;
  let organizations: [number, number];
  /** The creator owns the last two: their share is their own requests and everyone's requests to these. */
  let assistantIds: number[];
  const seeded: DailyUsageIncrement[] = [];

  beforeAll(async () => {
    server = await startTestServer(dialect);
    systemAdmin = await loginAsAdmin(server);
    creator = await createUser(server, systemAdmin, { email: `roll-ups-${dialect}@merino.test`, role: 'creator' });
    const first = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id as number;
    organizations = [first, await insertOrganization(server.store.db, `roll-ups-${dialect}`, 'Roll-ups')];
    const owned: number[] = [];
    for (const name of ['Owned one', 'Owned two']) {
      const created = await request(server, 'POST', '/api/assistants', {
        token: creator.token,
        body: { name, metadata: { connector: 'bypass', llm: 'debug-bypass' } },
      });
      owned.push(created.body.id as number);
    }
    assistantIds = [900_001, 900_002, 900_003, ...owned];
    // A deterministic spread: 7 people (the creator among them), 5 assistants, 3 models, most days.
    let seed = 7;
    const next = (limit: number) => (seed = (seed * 48_271) % 2_147_483_647) % limit;
    for (let day = 0; day < DAYS; day += 1)
      for (let person = 0; person < 7; person += 1) {
        if (next(4) === 0) continue;
        const assistant = 1 + next(5);
        seeded.push({
          day: new Date(FIRST_DAY + day * 86_400_000).toISOString().slice(0, 10),
          organization_id: organizations[person % 2]!,
          user_id: person === 0 ? creator.id : 5_000 + person,
          assistant_id: assistantIds[assistant - 1]!,
          model: MODELS[assistant % MODELS.length]!,
          requests: 1 + next(9),
          prompt_tokens: 100 + next(900),
          completion_tokens: 10 + next(90),
          cost_micro_usd: next(1_000),
        });
      }
    await addDailyUsage(server.store.db, seeded);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  /** What summing the seeded days gives for one report. */
  function expected(rows: readonly DailyUsageIncrement[], groupBy: (typeof GROUPINGS)[number]): Map<string, Sums> {
    const column = { day: 'day', user: 'user_id', assistant: 'assistant_id', model: 'model' } as const;
    const groups = new Map<string, Sums>();
    for (const row of rows) {
      const key = String(row[column[groupBy]]);
      const sums = groups.get(key) ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
      sums.requests += row.requests;
      sums.prompt_tokens += row.prompt_tokens;
      sums.completion_tokens += row.completion_tokens;
      sums.cost_usd += row.cost_micro_usd;
      groups.set(key, sums);
    }
    for (const sums of groups.values()) sums.cost_usd /= 1_000_000;
    return groups;
  }

  function answered(groups: Array<Sums & { key: string }>): Map<string, Sums> {
    return new Map(
      groups.map(({ key, requests, prompt_tokens, completion_tokens, cost_usd }) => [
        key,
        { requests, prompt_tokens, completion_tokens, cost_usd },
      ]),
    );
  }

  const scopes: Array<[string, (row: DailyUsageIncrement) => boolean, () => { token: string; query: string }]> = [
    ['the whole server', () => true, () => ({ token: systemAdmin, query: '' })],
    [
      'one organization',
      (row) => row.organization_id === organizations[1],
      () => ({ token: systemAdmin, query: `&organization_id=${organizations[1]}` }),
    ],
    ['one person', (row) => row.user_id === 5_003, () => ({ token: systemAdmin, query: '&user_id=5003' })],
    ['one assistant', (row) => row.assistant_id === 900_002, () => ({ token: systemAdmin, query: '&assistant_id=900002' })],
    [
      "a creator's own share",
      (row) => row.user_id === creator.id || assistantIds.slice(3).includes(row.assistant_id),
      () => ({ token: creator.token, query: '' }),
    ],
  ];

  it.each(scopes)('sums %s exactly over every range and grouping', async (_name, inScope, caller) => {
    const { token, query } = caller();
    for (const [from, to] of RANGES)
      for (const groupBy of GROUPINGS) {
        const rows = seeded.filter((row) => inScope(row) && row.day >= from && row.day <= to);
        const report = await request(server, 'GET', `/api/usage?from=${from}&to=${to}&group_by=${groupBy}${query}`, { token });
        expect(report.status, report.text).toBe(200);
        const label = `${from}..${to} by ${groupBy}`;
        expect(answered(report.body.groups), label).toEqual(expected(rows, groupBy));
        const totals = expected(rows, 'model');
        const total = [...totals.values()].reduce(
          (sum, sums) => ({
            requests: sum.requests + sums.requests,
            prompt_tokens: sum.prompt_tokens + sums.prompt_tokens,
            completion_tokens: sum.completion_tokens + sums.completion_tokens,
          }),
          { requests: 0, prompt_tokens: 0, completion_tokens: 0 },
        );
        expect(
          {
            requests: report.body.totals.requests,
            prompt_tokens: report.body.totals.prompt_tokens,
            completion_tokens: report.body.totals.completion_tokens,
          },
          label,
        ).toEqual(total);
        if (groupBy === 'day')
          expect(
            report.body.groups.map((group: { key: string }) => group.key),
            label,
          ).toEqual([...expected(rows, 'day').keys()].sort());
        else {
          const tokens = report.body.groups.map((group: { total_tokens: number }) => group.total_tokens);
          expect(tokens, label).toEqual([...tokens].sort((first: number, second: number) => second - first));
        }
      }
  });

  it('keeps every roll-up agreeing when 50 writers add to one key at once', async () => {
    const increment: DailyUsageIncrement = {
      day: '2024-02-29',
      organization_id: organizations[1],
      user_id: 7_777,
      assistant_id: 977_777,
      model: 'gpt-4o',
      requests: 1,
      prompt_tokens: 10,
      completion_tokens: 2,
      cost_micro_usd: 3,
    };
    await Promise.all(
      Array.from({ length: 50 }, () => server.store.db.transaction().execute((transaction) => addDailyUsage(transaction, [increment]))),
    );
    const sums = (row: { requests: unknown; prompt_tokens: unknown; completion_tokens: unknown; cost_micro_usd: unknown } | undefined) =>
      [row?.requests, row?.prompt_tokens, row?.completion_tokens, row?.cost_micro_usd].map(Number);
    const { db } = server.store;
    const daily = await db.selectFrom('usage_daily').selectAll().where('user_id', '=', 7_777).executeTakeFirst();
    const monthly = await db
      .selectFrom('usage_monthly')
      .selectAll()
      .where('user_id', '=', 7_777)
      .where('month', '=', '2024-02')
      .executeTakeFirst();
    const models = await db
      .selectFrom('usage_daily_models')
      .selectAll()
      .where('organization_id', '=', organizations[1])
      .where('day', '=', '2024-02-29')
      .executeTakeFirst();
    expect(sums(daily)).toEqual([50, 500, 100, 150]);
    expect(sums(monthly)).toEqual([50, 500, 100, 150]);
    expect(sums(models)).toEqual([50, 500, 100, 150]);
    const byAssistant = (table: 'usage_daily_assistants' | 'usage_monthly_assistants') =>
      db.selectFrom(table).selectAll().where('assistant_id', '=', 977_777).executeTakeFirst();
    const byPerson = (table: 'usage_monthly_people' | 'usage_weekly_people' | 'usage_quarterly_people') =>
      db.selectFrom(table).selectAll().where('user_id', '=', 7_777).executeTakeFirst();
    expect(sums(await byAssistant('usage_daily_assistants'))).toEqual([50, 500, 100, 150]);
    expect(sums(await byAssistant('usage_monthly_assistants'))).toEqual([50, 500, 100, 150]);
    expect(sums(await byPerson('usage_monthly_people'))).toEqual([50, 500, 100, 150]);
    const weekly = await byPerson('usage_weekly_people');
    expect([weekly?.week, ...sums(weekly)]).toEqual(['2024-02-26', 50, 500, 100, 150]);
    const quarterly = await byPerson('usage_quarterly_people');
    expect([quarterly?.quarter, ...sums(quarterly)]).toEqual(['2024-01', 50, 500, 100, 150]);
  });
});
