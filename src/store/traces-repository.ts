/** Stored traces of verbose assistants' runs. */
import type { Kysely } from 'kysely';
import type { Database, TracesTable } from './schema.js';

export async function insertTrace(db: Kysely<Database>, trace: TracesTable): Promise<void> {
  await db.insertInto('traces').values(trace).execute();
}

/** Several traces in one statement; callers keep a batch small enough for SQLite's parameter limit. */
export async function insertTraces(db: Kysely<Database>, traces: readonly TracesTable[]): Promise<void> {
  if (traces.length > 0)
    await db
      .insertInto('traces')
      .values([...traces])
      .execute();
}

export async function findTrace(db: Kysely<Database>, id: string): Promise<TracesTable | undefined> {
  return db.selectFrom('traces').selectAll().where('id', '=', id).executeTakeFirst();
}
