/** Stored traces of verbose assistants' runs. */
import type { Kysely } from 'kysely';
import type { Database, TracesTable } from './schema.js';

export async function insertTrace(db: Kysely<Database>, trace: TracesTable): Promise<void> {
  await db.insertInto('traces').values(trace).execute();
}

export async function findTrace(db: Kysely<Database>, id: string): Promise<TracesTable | undefined> {
  return db.selectFrom('traces').selectAll().where('id', '=', id).executeTakeFirst();
}
