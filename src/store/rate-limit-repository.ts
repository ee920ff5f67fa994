/**
 * Rate-limit counters in the store, so every process sharing the database counts against one
 * limit. A window opens at a subject's first event and lasts `windowMilliseconds`; the event that
 * comes after it opens the next one. Counting is one atomic upsert in both dialects, so processes
 * racing on one subject never lose an event.
 */
import { sql, type Kysely } from 'kysely';
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

/**
 * Counts one event for each of several distinct subjects sharing one window length, in one
 * statement (one commit on SQLite, one round trip on PostgreSQL); answers each subject's state.
 */
export async function countRateLimitEvents(
  db: Kysely<Database>,
  subjects: readonly string[],
  now: number,
  windowMilliseconds: number,
): Promise<Map<string, CounterState>> {
  const windowOpenSince = now - windowMilliseconds;
  const rows = sql.join(subjects.map((subject) => sql`(${subject}, ${now}, 1)`));
  const result = await sql<{ subject: string; count: number | string; window_started_at: number | string }>`
    insert into rate_limit_counters (subject, window_started_at, count) values ${rows}
    on conflict (subject) do update set
      count = case when rate_limit_counters.window_started_at > ${windowOpenSince} then rate_limit_counters.count + 1 else 1 end,
      window_started_at = case when rate_limit_counters.window_started_at > ${windowOpenSince} then rate_limit_counters.window_started_at else ${now} end
    returning subject, count, window_started_at`.execute(db);
  // PostgreSQL's driver reads bigint as text.
  return new Map(result.rows.map((row) => [row.subject, { count: Number(row.count), windowStartedAt: Number(row.window_started_at) }]));
}

/** The subject's current window at `now`, or undefined when it has none open. */
export async function readRateLimitCounter(
  db: Kysely<Database>,
  subject: string,
  now: number,
  windowMilliseconds: number,
): Promise<CounterState | undefined> {
  const row = await db
    .selectFrom('rate_limit_counters')
    .select(['count', 'window_started_at'])
    .where('subject', '=', subject)
    .where('window_started_at', '>', now - windowMilliseconds)
    .executeTakeFirst();
  return row && { count: row.count, windowStartedAt: Number(row.window_started_at) };
}

export async function clearRateLimitCounter(db: Kysely<Database>, subject: string): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('subject', '=', subject).execute();
}

/** Deletes counters whose window opened before `before`; they no longer limit anything. */
export async function pruneRateLimitCounters(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('window_started_at', '<', before).execute();
}
