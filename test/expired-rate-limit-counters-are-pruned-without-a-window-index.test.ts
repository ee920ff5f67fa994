// Migration 0101 drops the rate-limit counters' index on `window_started_at` (every chat request's
// upsert rewrote it). Proves, on both stores, that the index is gone and that the hourly prune,
// which now reads the table, still deletes exactly the counters whose window opened before the
// cut-off and leaves the others' counts as they were.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { countRateLimitEvents, pruneRateLimitCounters } from '../src/store/rate-limit-repository.js';
import { storeSuite } from './support/store-suite.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const WINDOW_MILLISECONDS = 60_000;

describe.each(TEST_DIALECTS)('rate-limit counters on %s', (dialect) => {
  const suite = storeSuite(dialect);

  it('have no index on window_started_at after migration 0101', async () => {
    const found =
      dialect === 'sqlite'
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'rate_limit_counters'`.execute(
            suite.store.db,
          )
        : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'rate_limit_counters'`.execute(
            suite.store.db,
          );
    const names = found.rows.map((row) => row.name);
    expect(names).not.toContain('rate_limit_counters_window_index');
    // The subject's own key stays: every count finds its row by it.
    expect(names.length).toBe(1);
  });

  it('prunes exactly the counters whose window opened before the cut-off', async () => {
    const now = Date.now();
    const cutOff = now - 10 * WINDOW_MILLISECONDS;
    await countRateLimitEvents(suite.store.db, new Map([['chat-user:old', 3]]), cutOff - 1, WINDOW_MILLISECONDS);
    await countRateLimitEvents(suite.store.db, new Map([['chat-user:at-cut-off', 2]]), cutOff, WINDOW_MILLISECONDS);
    await countRateLimitEvents(suite.store.db, new Map([['chat-user:recent', 1]]), now, WINDOW_MILLISECONDS);
    await countRateLimitEvents(suite.store.db, new Map([['chat-user:recent', 4]]), now, WINDOW_MILLISECONDS);

    await pruneRateLimitCounters(suite.store.db, cutOff);

    const rows = await suite.store.db
      .selectFrom('rate_limit_counters')
      .select(['subject', 'count'])
      .where('subject', 'like', 'chat-user:%')
      .orderBy('subject')
      .execute();
    expect(rows.map((row) => [row.subject, row.count])).toEqual([
      ['chat-user:at-cut-off', 2],
      ['chat-user:recent', 5],
    ]);
  });
});
