/**
 * What `GET /api/assistants/{id}/insights` costs for a busy assistant. MESSAGES chat messages
 * (default 1,000,000: questions and answers, half each) are drawn as one course assistant would
 * get them over a year: LEARNERS learners (default 3,000), a few far busier than most, chats of one
 * to a dozen questions, weekends at a third and the summer at a fifth of a term day's traffic,
 * questions drawn from a vocabulary of 400 terms and answers citing 60 documents. The messages
 * and the chats are inserted in bulk, and so are the insights roll-ups (migration 0081) the server
 * would have written with each answer (daily and monthly), summed from the same draw (writing a million answers
 * through the chat API would take the bench hours). The counts of each table are printed. Then the
 * insights are asked REQUESTS times over real HTTP, one at a time, for 7, 30 and 366 days and as
 * CSV, and their p50 and p99 printed. Prints figures; never passes or fails on them.
 *
 *   npx vitest run --config vitest.bench.config.ts bench/assistant-insights.bench.ts   (MESSAGES=1000000 REQUESTS=200 BENCH_DIALECTS=sqlite,postgres)
 */
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { answerTimeBucket } from '../src/insights/answer-time-histogram.js';
import type { Database } from '../src/store/schema.js';
import type { Dialect } from '../test/support/test-databases.js';
import { loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { measure, printFigures, wholeNumberSetting, type Figures } from './support/measure.js';

const MESSAGES = wholeNumberSetting('MESSAGES', 1_000_000, 2);
const LEARNERS = wholeNumberSetting('LEARNERS', 3_000, 1);
const REQUESTS = wholeNumberSetting('REQUESTS', 200, 1);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite').split(',') as Dialect[];
const DAYS = 365;
const TERMS = 400;
const DOCUMENTS = 60;
/** Rows per INSERT: 8 columns each stays under SQLite's parameter limit. */
const ROWS_PER_STATEMENT = 1_000;
const LAST_DAY = Date.parse('2026-06-30T00:00:00Z');
/** The first learner id the draw uses; the bench's own accounts come before it (ids need no user row: only counted). */
const FIRST_LEARNER = 1_000;

/** A small deterministic generator (mulberry32), so each run draws the same year. */
function randomNumbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function dayText(index: number): string {
  return new Date(LAST_DAY - (DAYS - 1 - index) * 86_400_000).toISOString().slice(0, 10);
}

function dayWeight(index: number): number {
  const day = new Date(LAST_DAY - (DAYS - 1 - index) * 86_400_000);
  const weekend = day.getUTCDay() === 0 || day.getUTCDay() === 6 ? 1 / 3 : 1;
  const summer = day.getUTCMonth() === 6 || day.getUTCMonth() === 7 ? 1 / 5 : 1;
  return weekend * summer;
}

/** What one day adds to the roll-ups, summed as the server would have added each answer. */
class DayRollUp {
  readonly counters = { chats: 0, questions: 0, answers: 0, prompt_tokens: 0, completion_tokens: 0, cost_micro_usd: 0, tool_calls: 0 };
  readonly items = new Map<
    string,
    { kind: 'learner' | 'answer_time' | 'source' | 'topic'; item: string; label: string | null; uses: number }
  >();

  add(kind: 'learner' | 'answer_time' | 'source' | 'topic', item: string, label: string | null = null): void {
    const key = `${kind}|${item}`;
    const row = this.items.get(key) ?? { kind, item, label, uses: 0 };
    row.uses += 1;
    this.items.set(key, row);
  }
}

async function insertInSlices(
  db: Kysely<Database>,
  table: 'chat_messages' | 'assistant_insights_items',
  rows: readonly object[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT)
    await db
      .insertInto(table)
      .values(rows.slice(start, start + ROWS_PER_STATEMENT))
      .execute();
}

interface Filled {
  seconds: number;
  chats: number;
  itemRows: number;
}

/** One day's chats, messages and roll-ups; returns the number of chats. */
async function fillDay(
  db: Kysely<Database>,
  day: { index: number; turns: number; assistantId: number; organizationId: number; random: () => number },
): Promise<{ chats: number; itemRows: number }> {
  const { random } = day;
  const date = dayText(day.index);
  const rollUp = new DayRollUp();
  const messages: object[] = [];
  let chats = 0;
  for (let done = 0; done < day.turns;) {
    const learner = FIRST_LEARNER + Math.floor(random() * random() * LEARNERS);
    const turns = Math.min(day.turns - done, 1 + Math.floor(random() * 12));
    const chat = await db
      .insertInto('chats')
      .values({
        organization_id: day.organizationId,
        owner_id: 1,
        assistant_id: day.assistantId,
        title: 'Bench chat',
        search_text: 'bench chat',
        created_at: `${date}T10:00:00.000Z`,
        updated_at: `${date}T10:00:00.000Z`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    chats += 1;
    rollUp.counters.chats += 1;
    rollUp.add('learner', String(learner));
    for (let turn = 0; turn < turns; turn += 1) {
      const terms = Array.from({ length: 3 }, () => `term${Math.floor(random() * random() * TERMS)}`);
      const document = Math.floor(random() * random() * DOCUMENTS);
      const created = `${date}T10:${String(turn).padStart(2, '0')}:00.000Z`;
      const base = { chat_id: chat.id, reasoning: null, steps: '[]', finish_reason: null, created_at: created, parent_id: null };
      messages.push({ ...base, role: 'user', content: `A question about ${terms.join(' ')}?`, sources: '[]', usage: null });
      messages.push({
        ...base,
        role: 'assistant',
        content: 'An answer of a few words.',
        sources: `[{"title":"document-${document}.md"}]`,
        usage: '{"prompt_tokens":900,"completion_tokens":250,"total_tokens":1150}',
      });
      rollUp.counters.questions += 1;
      rollUp.counters.answers += 1;
      rollUp.counters.prompt_tokens += 900;
      rollUp.counters.completion_tokens += 250;
      rollUp.counters.cost_micro_usd += 285;
      rollUp.counters.tool_calls += 1;
      rollUp.add('answer_time', answerTimeBucket(800 + -Math.log(1 - random()) * 2_500));
      rollUp.add('source', `:document-${document}`, `document-${document}.md`);
      for (const term of new Set(terms)) rollUp.add('topic', term);
    }
    done += turns;
  }
  await insertInSlices(db, 'chat_messages', messages);
  await db
    .insertInto('assistant_insights_daily')
    .values({
      assistant_id: day.assistantId,
      day: date,
      ...rollUp.counters,
      retrieval_questions: rollUp.counters.questions,
      retrieval_empty: Math.floor(rollUp.counters.questions / 9),
    })
    .execute();
  const items = [...rollUp.items.values()].map((item) => ({ assistant_id: day.assistantId, day: date, ...item }));
  await insertInSlices(db, 'assistant_insights_items', items);
  return { chats, itemRows: items.length };
}

async function fill(db: Kysely<Database>, owner: { assistantId: number; organizationId: number; dialect: Dialect }): Promise<Filled> {
  const started = performance.now();
  const random = randomNumbers(81);
  const weights = Array.from({ length: DAYS }, (_, index) => dayWeight(index));
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  const pairs = Math.floor(MESSAGES / 2);
  let assigned = 0;
  let chats = 0;
  let itemRows = 0;
  for (let index = 0; index < DAYS; index += 1) {
    const turns = index === DAYS - 1 ? pairs - assigned : Math.round((pairs * weights[index]!) / totalWeight);
    assigned += turns;
    const day = await fillDay(db, { index, turns, random, ...owner });
    chats += day.chats;
    itemRows += day.itemRows;
  }
  // The monthly tier holds what the server adds to it with each answer: the days' counts summed per month.
  await sql`
    INSERT INTO assistant_insights_monthly_items (assistant_id, kind, month, item, label, uses)
    SELECT assistant_id, kind, substr(day, 1, 7), item, max(label), sum(uses)
    FROM assistant_insights_items GROUP BY assistant_id, kind, substr(day, 1, 7), item
  `.execute(db);
  if (owner.dialect === 'postgres') await sql`VACUUM ANALYZE`.execute(db);
  else await sql`ANALYZE`.execute(db);
  return { seconds: (performance.now() - started) / 1000, chats, itemRows };
}

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  const server = await startTestServer(dialect, { environment: { LOG_LEVEL: 'warn' } });
  try {
    const admin = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: admin })).body.organization_id as number;
    const created = await request(server, 'POST', '/api/assistants', {
      token: admin,
      body: { name: 'Busy course assistant', metadata: { connector: 'bypass', llm: 'debug-bypass' } },
    });
    const assistantId = created.body.id as number;
    const filled = await fill(server.store.db, { assistantId, organizationId, dialect });
    const counted = await server.store.db
      .selectFrom('chat_messages')
      .select((expression) => expression.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    process.stdout.write(
      `\n${dialect}: ${Number(counted.count).toLocaleString('en')} chat messages in ${filled.chats.toLocaleString('en')} chats of one assistant; roll-ups: ${DAYS} daily rows and ${filled.itemRows.toLocaleString('en')} item rows; written in ${filled.seconds.toFixed(1)} s\n`,
    );
    const cases: [string, string][] = [
      ['7 days', 'from=2026-06-24&to=2026-06-30'],
      ['30 days (a calendar month)', 'from=2026-06-01&to=2026-06-30'],
      ['30 days (mid-month to mid-month)', 'from=2026-05-15&to=2026-06-13'],
      ['366 days', 'from=2025-06-30&to=2026-06-30'],
      ['366 days, CSV', 'from=2025-06-30&to=2026-06-30&format=csv'],
    ];
    const figures: Figures[] = [];
    for (const [name, query] of cases) {
      const path = `/api/assistants/${assistantId}/insights?${query}`;
      // The first call after the long fill may meet a keep-alive socket the server has closed meanwhile: it is asked again.
      const probe = await request(server, 'GET', path, { token: admin }).catch(() => request(server, 'GET', path, { token: admin }));
      expect(probe.status, probe.text).toBe(200);
      if (name === '366 days')
        process.stdout.write(
          `${dialect}: 366 days count ${probe.body.totals.messages.toLocaleString('en')} messages, ${probe.body.totals.learners} learners\n`,
        );
      figures.push(
        await measure(`${dialect}: ${name}`, REQUESTS, 1, async () => (await request(server, 'GET', path, { token: admin })).status),
      );
    }
    return figures;
  } finally {
    await server.close();
  }
}

describe('assistant insights', () => {
  it('prints GET /api/assistants/{id}/insights p50 and p99 over a year of a busy assistant', { timeout: 3_600_000 }, async () => {
    for (const dialect of DIALECTS)
      printFigures(
        `GET /api/assistants/{id}/insights over ${MESSAGES.toLocaleString('en')} messages on ${dialect} (${REQUESTS} requests each, one at a time)`,
        await benchmark(dialect),
        30,
      );
  });
});
