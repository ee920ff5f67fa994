/** The smallest query the store answers, so a health check learns whether the database is reachable without reading any table. */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Resolves when the database answers a trivial query; rejects with the driver's error when it cannot. */
export async function checkStore(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
