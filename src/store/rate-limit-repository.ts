/**
 * Rate-limit counters in the store, so every process sharing the database counts against one
 * limit. A window opens at a subject's first event and lasts `windowMilliseconds`; the event that
 * comes after it opens the next one. Counting is one atomic upsert in both dialects, so processes
 * racing on one subject never lose an event.
 */
import { sql, type Kysely } from 'kysely';
import { precompiledQuery, type PrecompiledRun } from './precompiled-query.js';
import type { Database } from './schema.js';

export interface CounterState {
  count: number;
  windowStartedAt: number;
}

/** Counts one event for `subject` at `now` and answers the count of its current window, this event included. */
export async function countRateLimitEvent(
  db: Kysely<Database>,
  subject: string,
  now: number,
  windowMilliseconds: number,
): Promise<CounterState> {
  const windowOpenSince = now - windowMilliseconds;
  const result = await sql<{ count: number | string; window_started_at: number | string }>`
    insert into rate_limit_counters (subject, window_started_at, count) values (${subject}, ${now}, 1)
    on conflict (subject) do update set
      count = case when rate_limit_counters.window_started_at > ${windowOpenSince} then rate_limit_counters.count + 1 else 1 end,
      window_started_at = case when rate_limit_counters.window_started_at > ${windowOpenSince} then rate_limit_counters.window_started_at else ${now} end
    returning count, window_started_at`.execute(db);
  const row = result.rows[0]!;
  // PostgreSQL's driver reads bigint as text.
  return { count: Number(row.count), windowStartedAt: Number(row.window_started_at) };
}

type CountedRow = { subject: string; count: number | string; window_started_at: number | string };

/** The upsert for `subjectCount` subjects, each with its own number of events, compiled once. */
function countingQuery(subjectCount: number): PrecompiledRun<Database, CountedRow, string> {
  const indexes = Array.from({ length: subjectCount }, (_, index) => index);
  return precompiledQuery(
    [...indexes.flatMap((index) => [`subject${index}`, `events${index}`]), 'now', 'windowOpenSince'],
    (db: Kysely<Database>, values) => {
      const { now, windowOpenSince } = values;
      const rows = sql.join(indexes.map((index) => sql`(${values[`subject${index}`]}, ${now}, ${values[`events${index}`]})`));
      const upsert = sql<CountedRow>`
        insert into rate_limit_counters (subject, window_started_at, count) values ${rows}
        on conflict (subject) do update set
          count = case when rate_limit_counters.window_started_at > ${windowOpenSince} then rate_limit_counters.count + excluded.count else excluded.count end,
          window_started_at = case when rate_limit_counters.window_started_at > ${windowOpenSince} then rate_limit_counters.window_started_at else ${now} end
        returning subject, count, window_started_at`;
      return { compile: () => upsert.compile(db) };
    },
  );
}

/** Statements for up to this many subjects are kept compiled; a larger batch is compiled when it comes. */
const COMPILED_SUBJECTS_MAXIMUM = 64;
const countingQueries = new Map<number, PrecompiledRun<Database, CountedRow, string>>();

/**
 * Counts events for several distinct subjects sharing one window length, `events` of them for
 * each, in one statement (one commit on SQLite, one round trip on PostgreSQL); answers each
 * subject's state once all of its events are counted.
 */
export async function countRateLimitEvents(
  db: Kysely<Database>,
  events: ReadonlyMap<string, number>,
  now: number,
  windowMilliseconds: number,
): Promise<Map<string, CounterState>> {
  let query = countingQueries.get(events.size);
  if (query === undefined) {
    query = countingQuery(events.size);
    if (events.size <= COMPILED_SUBJECTS_MAXIMUM) countingQueries.set(events.size, query);
  }
  const values: Record<string, unknown> = { now, windowOpenSince: now - windowMilliseconds };
  let index = 0;
  for (const [subject, count] of events) {
    values[`subject${index}`] = subject;
    values[`events${index}`] = count;
    index += 1;
  }
  const rows = await query(db, values);
  // PostgreSQL's driver reads bigint as text.
  return new Map(rows.map((row) => [row.subject, { count: Number(row.count), windowStartedAt: Number(row.window_started_at) }]));
}

/**
 * Takes back one event counted in the window that opened at `windowStartedAt`: an attempt that
 * held a place in the window while it was checked and turned out not to be what the limit counts.
 * A window that has since closed (or a counter cleared meanwhile) is left alone.
 */
export async function releaseRateLimitEvent(db: Kysely<Database>, subject: string, windowStartedAt: number): Promise<void> {
  await db
    .updateTable('rate_limit_counters')
    .set((expression) => ({ count: expression('count', '-', 1) }))
    .where('subject', '=', subject)
    .where('window_started_at', '=', windowStartedAt)
    .where('count', '>', 0)
    .execute();
}

export async function clearRateLimitCounter(db: Kysely<Database>, subject: string): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('subject', '=', subject).execute();
}

/** Deletes counters whose window opened before `before`; they no longer limit anything. */
export async function pruneRateLimitCounters(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('window_started_at', '<', before).execute();
}
