/**
 * What `GET /api/usage` costs as usage grows. USAGE_ROWS usage rows (default 1,000,000; set
 * 10000000 for ten million) are drawn as a university of two faculties would make them over a
 * year, and only their roll-ups are written: `usage_daily` inserted in bulk, then `usage_monthly`
 * and `usage_daily_models` summed from it by the statements migration 0078 fills them with (the
 * server keeps all three with each usage row; writing ten million rows through it would take the
 * bench hours). Both counts, usage rows and usage_daily rows, are printed. The university: 6,000 people each taking two to four of 300 course
 * assistants, each assistant on one of 4 models (half on the first); weekends at a third and the
 * summer at a fifth of a term day's traffic; a few people use it far more than most; a sitting is
 * one to a couple of dozen requests to one assistant. Then each report is asked REQUESTS times
 * over real HTTP, one at a time, and its p50 and p99 printed: a week, a month and a year, by
 * each grouping, as an organization admin, a creator, a learner and a system admin would ask.
 * Prints figures; never passes or fails on them.
 *
 *   npm run bench -- bench/usage-aggregation.bench.ts      (USAGE_ROWS=10000000 REQUESTS=100 BENCH_DIALECTS=sqlite,postgres)
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import type { DailyUsageIncrement } from '../src/store/usage-daily-repository.js';
import type { Dialect } from '../test/support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
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
  await sql`
    INSERT INTO usage_monthly (month, organization_id, user_id, assistant_id, model, requests, prompt_tokens, completion_tokens, cost_micro_usd)
    SELECT substr(day, 1, 7), organization_id, user_id, assistant_id, model, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost_micro_usd)
    FROM usage_daily GROUP BY substr(day, 1, 7), organization_id, user_id, assistant_id, model
  `.execute(server.store.db);
  await sql`
    INSERT INTO usage_daily_models (day, organization_id, model, requests, prompt_tokens, completion_tokens, cost_micro_usd)
    SELECT day, organization_id, model, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost_micro_usd)
    FROM usage_daily GROUP BY day, organization_id, model
  `.execute(server.store.db);
  if (server.store.dialect === 'postgres') await sql`VACUUM ANALYZE`.execute(server.store.db);
  else await sql`ANALYZE`.execute(server.store.db);
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

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  const server = await startTestServer(dialect, { environment: { LOG_LEVEL: 'warn', CHAT_REQUESTS_PER_USER_MAX: '1000000' } });
  try {
    const systemAdmin = await loginAsAdmin(server);
    const organizationA = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id as number;
    const organizationB = await insertOrganization(server.store.db, 'bench-b', 'Organization B');
    const admin = await createUser(server, systemAdmin, { email: 'bench-usage-admin@merino.test', role: 'admin' });
    const creator = await createUser(server, systemAdmin, { email: 'bench-usage-creator@merino.test', role: 'creator' });
    const learner = await createUser(server, systemAdmin, { email: 'bench-usage-learner@merino.test', role: 'learner' });
    // The creator's assistants are the first three: busy course assistants, as any three are.
    for (let index = 0; index < 3; index += 1)
      await request(server, 'POST', '/api/assistants', {
        token: creator.token,
        body: { name: `Bench ${index}`, metadata: { connector: 'bypass', llm: 'debug-bypass' } },
      });
    const filled = await fillRollUp(server, [organizationA, organizationB]);
    process.stdout.write(
      `\n${dialect}: ${USAGE_ROWS.toLocaleString('en')} usage rows, rolled up into ${filled.rollUpRows.toLocaleString('en')} usage_daily rows, written in ${filled.seconds.toFixed(1)} s\n`,
    );
    const figures: Figures[] = [];
    for (const [name, token, query] of reportCases({ systemAdmin, admin: admin.token, creator: creator.token, learner: learner.token })) {
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
