/**
 * What `GET /api/usage` costs as usage grows. USAGE_ROWS usage rows (default 1,000,000; set
 * 10000000 for ten million) are drawn as a university of two faculties would make them over a
 * year, and only their roll-ups are written: `usage_daily` inserted in bulk, then the coarser
 * roll-ups summed from it as migrations 0078, 0083 and 0086 fill them (the server keeps them all with
 * each usage row; writing ten million rows through it would take the bench hours). Both counts,
 * usage rows and usage_daily rows, are printed. The university: 6,000 people each taking two to
 * four of 300 course assistants, each assistant on one of 4 models (half on the first); weekends at a third and the
 * summer at a fifth of a term day's traffic; a few people use it far more than most; a sitting is
 * one to a couple of dozen requests to one assistant. Then each report is asked REQUESTS times
 * over real HTTP, one at a time, and its p50 and p99 printed: a week, a month and a year, by
 * each grouping, as an organization admin, a creator, a learner and a system admin would ask.
 * Prints figures; never passes or fails on them.
 *
 *   npm run bench -- bench/usage-aggregation.bench.ts      (USAGE_ROWS=10000000 REQUESTS=100 BENCH_DIALECTS=sqlite,postgres)
 *
 * Ten million rows take a minute or two to write on each store. To measure a change again and again, keep the
 * stores: USAGE_BENCH_DATA_DIR (a folder; the SQLite file lives there) and USAGE_BENCH_DATABASE_URL
 * (an empty PostgreSQL database of your own) are filled on the first run and only measured after.
 */
import { sql, type RawBuilder } from 'kysely';
import { describe, expect, it } from 'vitest';
import { quarterOfColumn } from '../src/store/migrations/0086-usage-quarterly-people.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import type { DailyUsageIncrement } from '../src/store/usage-daily-repository.js';
import { TEST_SHARED_SECRET_KEY, type Dialect, type TestDatabase } from '../test/support/test-databases.js';
import { createUser, login, loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
import { measure, printFigures, wholeNumberSetting, type Figures } from './support/measure.js';

const USAGE_ROWS = wholeNumberSetting('USAGE_ROWS', 1_000_000, 1);
const REQUESTS = wholeNumberSetting('REQUESTS', 100, 1);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite').split(',') as Dialect[];
const DAYS = 365;
const PEOPLE = 6_000;
const ASSISTANTS = 300;
/** Half of the assistants run on the first model, a quarter on the second, and so on. */
const MODELS = ['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini', 'llama3.1:8b', 'gpt-4o-mini', 'gpt-4o', 'gpt-4o-mini'];
/** Rows per INSERT: 9 columns each stays under SQLite's parameter limit. */
const ROWS_PER_STATEMENT = 1_000;
const LAST_DAY = Date.parse('2026-06-30T00:00:00Z');
/** The first person id the drawn usage uses; the bench's own accounts come before it. */
const FIRST_PERSON = 1_000;

/** The roll-ups the server keeps beside usage_daily: each is usage_daily summed by its period and keys. */
const COARSER_ROLL_UPS: ReadonlyArray<[string, 'day' | 'week' | 'month' | 'quarter', string[]]> = [
  ['usage_monthly', 'month', ['user_id', 'assistant_id', 'model']],
  ['usage_daily_models', 'day', ['model']],
  ['usage_daily_assistants', 'day', ['assistant_id', 'model']],
  ['usage_monthly_assistants', 'month', ['assistant_id', 'model']],
  ['usage_monthly_people', 'month', ['user_id']],
  ['usage_weekly_people', 'week', ['user_id']],
  ['usage_quarterly_people', 'quarter', ['user_id']],
];

/** A usage_daily row's month, quarter (its first month) or week (its Monday) as each dialect's date functions give it. */
function periodOfDay(period: 'day' | 'week' | 'month' | 'quarter', dialect: Dialect): RawBuilder<unknown> {
  if (period === 'day') return sql`day`;
  if (period === 'month') return sql`substr(day, 1, 7)`;
  if (period === 'quarter') return quarterOfColumn('day', dialect);
  return dialect === 'postgres'
    ? sql`to_char(date_trunc('week', CAST(day AS date)), 'YYYY-MM-DD')`
    : sql`date(day, '-6 days', 'weekday 1')`;
}

/** A small deterministic generator (mulberry32), so each run draws the same university. */
function randomNumbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function dayOf(index: number): Date {
  return new Date(LAST_DAY - index * 86_400_000);
}

/** Term weekdays 1, weekends a third, July and August a fifth. */
function dayWeight(day: Date): number {
  const weekend = day.getUTCDay() === 0 || day.getUTCDay() === 6 ? 1 / 3 : 1;
  const summer = day.getUTCMonth() === 6 || day.getUTCMonth() === 7 ? 1 / 5 : 1;
  return weekend * summer;
}

interface University {
  /** The assistants each person takes (1-based assistant ids). */
  courses: number[][];
  organizationOf: (person: number) => number;
}

function drawUniversity(random: () => number, organizations: [number, number]): University {
  const courses = Array.from({ length: PEOPLE }, () =>
    Array.from({ length: 2 + Math.floor(random() * 3) }, () => 1 + Math.floor(random() * ASSISTANTS)),
  );
  // Faculty A (where the bench's admin is) has three people in five.
  return { courses, organizationOf: (person) => organizations[person % 5 < 3 ? 0 : 1] };
}

/** One day's roll-up rows: sittings of a person with one of their assistants, until the day's share of usage rows is drawn. */
function drawDay(random: () => number, university: University, day: string, usageRows: number): DailyUsageIncrement[] {
  const rows = new Map<string, DailyUsageIncrement>();
  let drawn = 0;
  while (drawn < usageRows) {
    // Squaring makes low numbers likelier: a few people use it far more than most.
    const person = Math.floor(random() * random() * PEOPLE);
    const personCourses = university.courses[person]!;
    const assistant = personCourses[Math.floor(random() * personCourses.length)]!;
    const requests = Math.min(usageRows - drawn, 1 + Math.floor(-Math.log(1 - random()) * 5));
    drawn += requests;
    const key = `${person}|${assistant}`;
    const row = rows.get(key) ?? {
      day,
      organization_id: university.organizationOf(person),
      user_id: FIRST_PERSON + person,
      assistant_id: assistant,
      model: MODELS[assistant % MODELS.length]!,
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_micro_usd: 0,
    };
    row.requests += requests;
    row.prompt_tokens += requests * (600 + Math.floor(random() * 1_200));
    row.completion_tokens += requests * (100 + Math.floor(random() * 400));
    row.cost_micro_usd += requests * 300;
    rows.set(key, row);
  }
  return [...rows.values()];
}

async function fillRollUp(server: TestServer, organizations: [number, number]): Promise<{ seconds: number; rollUpRows: number }> {
  const started = performance.now();
  const random = randomNumbers(31);
  const university = drawUniversity(random, organizations);
  const weights = Array.from({ length: DAYS }, (_, index) => dayWeight(dayOf(index)));
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  let rollUpRows = 0;
  let assigned = 0;
  for (let index = 0; index < DAYS; index += 1) {
    const share = index === DAYS - 1 ? USAGE_ROWS - assigned : Math.round((USAGE_ROWS * weights[index]!) / totalWeight);
    assigned += share;
    const rows = drawDay(random, university, dayOf(index).toISOString().slice(0, 10), share);
    rollUpRows += rows.length;
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT)
      await server.store.db
        .insertInto('usage_daily')
        .values(rows.slice(start, start + ROWS_PER_STATEMENT))
        .execute();
  }
  for (const [table, period, keys] of COARSER_ROLL_UPS) {
    const columns = sql.raw(['organization_id', ...keys].join(', '));
    const periodColumn = periodOfDay(period, server.store.dialect);
    await sql`
      INSERT INTO ${sql.table(table)} (${sql.ref(period)}, ${columns}, requests, prompt_tokens, completion_tokens, cost_micro_usd)
      SELECT ${periodColumn}, ${columns}, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost_micro_usd)
      FROM usage_daily GROUP BY ${periodColumn}, ${columns}
    `.execute(server.store.db);
  }
  return { seconds: (performance.now() - started) / 1000, rollUpRows };
}

interface Callers {
  systemAdmin: string;
  admin: string;
  creator: string;
  learner: string;
}

/** Each report the bench asks for: who asks, and the query. */
function reportCases(callers: Callers): Array<[string, string, string]> {
  const week = 'from=2026-06-24&to=2026-06-30';
  const month = 'from=2026-06-01&to=2026-06-30';
  const shiftedMonth = 'from=2026-05-15&to=2026-06-13';
  const year = 'from=2025-06-30&to=2026-06-30';
  return [
    ['org admin, 7 days by day', callers.admin, `${week}&group_by=day`],
    ['org admin, 30 days by day', callers.admin, `${month}&group_by=day`],
    ['org admin, 366 days by day', callers.admin, `${year}&group_by=day`],
    ['org admin, 30 days by user', callers.admin, `${month}&group_by=user`],
    ['org admin, 30 days (mid-month) by user', callers.admin, `${shiftedMonth}&group_by=user`],
    ['org admin, 366 days by user', callers.admin, `${year}&group_by=user`],
    ['org admin, 30 days by assistant', callers.admin, `${month}&group_by=assistant`],
    ['org admin, 366 days by assistant', callers.admin, `${year}&group_by=assistant`],
    ['org admin, 30 days by model', callers.admin, `${month}&group_by=model`],
    ['org admin, 366 days by model', callers.admin, `${year}&group_by=model`],
    ['org admin, 366 days of 1 assistant by day', callers.admin, `${year}&group_by=day&assistant_id=1`],
    ['org admin, 366 days of 1 person by day', callers.admin, `${year}&group_by=day&user_id=${FIRST_PERSON}`],
    ['creator, 30 days by assistant', callers.creator, `${month}&group_by=assistant`],
    ['creator, 366 days by day', callers.creator, `${year}&group_by=day`],
    ['learner, 366 days by day', callers.learner, `${year}&group_by=day`],
    ['system admin, 30 days by model', callers.systemAdmin, `${month}&group_by=model`],
    ['system admin, 366 days by day', callers.systemAdmin, `${year}&group_by=day`],
    ['system admin, 366 days by user', callers.systemAdmin, `${year}&group_by=user`],
    ['org admin, 30 days by user, CSV', callers.admin, `${month}&group_by=user&format=csv`],
  ];
}

/** The store kept between runs for this dialect, when one is named; else the bench makes a fresh one. */
function keptDatabase(dialect: Dialect): TestDatabase | undefined {
  const dataDirectory = process.env.USAGE_BENCH_DATA_DIR;
  if (dataDirectory === undefined) return undefined;
  const databaseUrl = dialect === 'postgres' ? process.env.USAGE_BENCH_DATABASE_URL : undefined;
  if (dialect === 'postgres' && databaseUrl === undefined) throw new Error('USAGE_BENCH_DATABASE_URL names the kept PostgreSQL database.');
  const environment: Record<string, string> = { DATA_DIR: `${dataDirectory}/${dialect}` };
  if (databaseUrl !== undefined) Object.assign(environment, { DATABASE_URL: databaseUrl, MERINO_SECRET_KEY: TEST_SHARED_SECRET_KEY });
  return { dialect, databaseUrl, dataDirectory: environment.DATA_DIR!, environment, drop: async () => {} };
}

const CALLER_ROLES = ['admin', 'creator', 'learner'] as const;

/** The bench's three callers, made on a fresh store (with the creator's three assistants), logged in on a kept one. */
async function benchCallers(server: TestServer, systemAdmin: string, fresh: boolean): Promise<Callers> {
  const tokens: Record<string, string> = {};
  for (const role of CALLER_ROLES) {
    const email = `bench-usage-${role}@merino.test`;
    tokens[role] = fresh ? (await createUser(server, systemAdmin, { email, role })).token : await login(server, email, `${email}-password`);
  }
  // The creator's assistants are the first three: busy course assistants, as any three are.
  if (fresh)
    for (let index = 0; index < 3; index += 1)
      await request(server, 'POST', '/api/assistants', {
        token: tokens.creator,
        body: { name: `Bench ${index}`, metadata: { connector: 'bypass', llm: 'debug-bypass' } },
      });
  return { systemAdmin, admin: tokens.admin!, creator: tokens.creator!, learner: tokens.learner! };
}

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  const kept = keptDatabase(dialect);
  const server = await startTestServer(dialect, {
    environment: { LOG_LEVEL: 'warn', CHAT_REQUESTS_PER_USER_MAX: '1000000' },
    ...(kept === undefined ? {} : { database: kept }),
  });
  try {
    const systemAdmin = await loginAsAdmin(server);
    const filledBefore = await server.store.db.selectFrom('usage_daily').select('day').limit(1).executeTakeFirst();
    const callers = await benchCallers(server, systemAdmin, filledBefore === undefined);
    if (filledBefore === undefined) {
      const organizationA = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id as number;
      const organizationB = await insertOrganization(server.store.db, 'bench-b', 'Organization B');
      const filled = await fillRollUp(server, [organizationA, organizationB]);
      process.stdout.write(
        `\n${dialect}: ${USAGE_ROWS.toLocaleString('en')} usage rows, rolled up into ${filled.rollUpRows.toLocaleString('en')} usage_daily rows, written in ${filled.seconds.toFixed(1)} s\n`,
      );
    } else process.stdout.write(`\n${dialect}: measuring the kept store in ${kept?.dataDirectory ?? ''} as it is\n`);
    // Planner statistics, for the bulk fill or for roll-ups a migration has just filled on a kept store.
    if (dialect === 'postgres') await sql`VACUUM ANALYZE`.execute(server.store.db);
    else await sql`ANALYZE`.execute(server.store.db);
    const figures: Figures[] = [];
    for (const [name, token, query] of reportCases(callers)) {
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
  // Ten million usage rows take minutes to write on each store; each store's figures are printed as soon as it is done.
  it('prints GET /api/usage p50 and p99 over a year of a university', { timeout: 7_200_000 }, async () => {
    for (const dialect of DIALECTS)
      printFigures(
        `GET /api/usage over ${USAGE_ROWS.toLocaleString('en')} usage rows on ${dialect} (${REQUESTS} requests each, one at a time)`,
        await benchmark(dialect),
        52,
      );
  });
});
