/** One row per completion request: who used which assistant, how many tokens, how it ended. */
import type { Insertable, Kysely } from 'kysely';
import type { Database, UsageLogsTable } from './schema.js';

export async function insertUsageLog(db: Kysely<Database>, row: Insertable<UsageLogsTable>): Promise<void> {
  await db.insertInto('usage_logs').values(row).execute();
}
