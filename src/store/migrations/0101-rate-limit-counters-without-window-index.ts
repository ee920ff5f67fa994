/**
 * Migration 0101: the rate-limit counters lose their index on `window_started_at`. Every chat
 * request counts an event, and an upsert that names the column in its `set` (as the count's must,
 * for the window that rolls over) rewrites that index's entry even when the value stays the same:
 * on SQLite one more page in each request's commit. Timed on better-sqlite3 alone (WAL,
 * synchronous=NORMAL, 2,000 counters, the chat upsert of two subjects 50,000 times, three runs
 * each): a median of 25.3 to 25.8 µs a count without the index against 34.1 to 35.0 with it, and a
 * mean, checkpoints included, of 36 to 57 against 58 to 63. The index served only the hourly
 * prune of expired counters, which now reads the table: one row per subject counted within the
 * longest window, a small table.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export function rateLimitCountersWithoutWindowIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`drop index if exists rate_limit_counters_window_index`.execute(db);
    },
  };
}
