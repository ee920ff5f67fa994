/**
 * Periodic work shared by a fleet of processes: a PostgreSQL advisory lock makes one process at a
 * time run a kind of work, and the `periodic_runs` row makes the fleet run it once per interval.
 * The lock is a session lock on one connection held for the whole run, so a process that dies
 * mid-run releases it with its connection. SQLite serves one machine's processes through one file,
 * where the claim's atomic upsert alone decides.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** The first half of every advisory lock key Merino takes ('MR'), so it never meets another application's keys. */
const ADVISORY_LOCK_NAMESPACE = 0x4d52;

export interface PeriodicRunClaim {
  name: string;
  runner: string;
  now: number;
  /** A run is claimed only when the last one started at least this long ago; 0 claims every time. */
  spacingMilliseconds: number;
}

/** Claims the next run of `name` for `runner`; false when another run started less than the spacing ago. */
export async function claimPeriodicRun(db: Kysely<Database>, claim: PeriodicRunClaim): Promise<boolean> {
  const { name, runner, now, spacingMilliseconds } = claim;
  const result = await sql<{ run_count: number }>`
    insert into periodic_runs (name, runner, started_at, finished_at, run_count) values (${name}, ${runner}, ${now}, null, 1)
    on conflict (name) do update set
      runner = excluded.runner, started_at = excluded.started_at, finished_at = null, run_count = periodic_runs.run_count + 1
    where periodic_runs.started_at <= ${now - spacingMilliseconds}
    returning run_count`.execute(db);
  return result.rows.length === 1;
}

export async function finishPeriodicRun(db: Kysely<Database>, name: string, now: number): Promise<void> {
  await db.updateTable('periodic_runs').set({ finished_at: now }).where('name', '=', name).execute();
}

export interface PeriodicRunRecord {
  runner: string;
  startedAt: number;
  finishedAt: number | undefined;
  runCount: number;
}

export async function readPeriodicRun(db: Kysely<Database>, name: string): Promise<PeriodicRunRecord | undefined> {
  const row = await db.selectFrom('periodic_runs').selectAll().where('name', '=', name).executeTakeFirst();
  return (
    row && {
      runner: row.runner,
      startedAt: Number(row.started_at),
      finishedAt: row.finished_at === null ? undefined : Number(row.finished_at),
      runCount: row.run_count,
    }
  );
}

/**
 * Runs `work` while holding the fleet-wide lock named `name`, or answers `{ ran: false }` at once
 * when another process holds it. On SQLite there is no lock to take: the work runs.
 */
export async function runUnderFleetLock<Result>(
  db: Kysely<Database>,
  dialect: Dialect,
  name: string,
  work: () => Promise<Result>,
): Promise<{ ran: true; result: Result } | { ran: false }> {
  if (dialect === 'sqlite') return { ran: true, result: await work() };
  return db.connection().execute(async (connection) => {
    const locked = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(${ADVISORY_LOCK_NAMESPACE}, hashtext(${name})) as locked`.execute(connection);
    if (locked.rows[0]?.locked !== true) return { ran: false };
    try {
      return { ran: true, result: await work() };
    } finally {
      await sql`select pg_advisory_unlock(${ADVISORY_LOCK_NAMESPACE}, hashtext(${name}))`.execute(connection);
    }
  });
}
