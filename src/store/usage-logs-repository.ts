/** One row per completion request: who used which assistant, how many tokens, how it ended. */
import type { Insertable, Kysely } from 'kysely';
import type { Database, UsageLogsTable } from './schema.js';

export async function insertUsageLog(db: Kysely<Database>, row: Insertable<UsageLogsTable>): Promise<void> {
  await db.insertInto('usage_logs').values(row).execute();
}

/** Several rows in one statement; callers keep a batch small enough for SQLite's parameter limit. */
export async function insertUsageLogs(db: Kysely<Database>, rows: readonly Insertable<UsageLogsTable>[]): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('usage_logs')
      .values([...rows])
      .execute();
}
