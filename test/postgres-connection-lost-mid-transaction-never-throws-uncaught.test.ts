/**
 * Proves that a PostgreSQL connection terminated while the store holds it between two statements
 * (checked out of the pool, no query running) ends as an error of the next statement, never as an
 * uncaught exception. pg's pool listens for errors only on idle clients; before the fix, a
 * `drop database ... with (force)` under a running server ended the test run with
 * "terminating connection due to administrator command".
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore, type Store } from '../src/store/store.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createTestDatabase, type TestDatabase } from './support/test-databases.js';

describe('a PostgreSQL connection terminated while checked out', () => {
  let database: TestDatabase;
  let store: Store;
  const uncaught: unknown[] = [];
  const recordUncaught = (error: unknown): void => {
    uncaught.push(error);
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres', { migrated: true });
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    process.on('uncaughtException', recordUncaught);
  });

  afterAll(async () => {
    process.off('uncaughtException', recordUncaught);
    await possiblyUnset(store)
      ?.close()
      .catch(() => undefined);
    await possiblyUnset(database)?.drop();
  });

  it('fails the next statement of its transaction and leaves the store usable', async () => {
    const outcome = store.db
      .transaction()
      .execute(async (transaction) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(transaction);
        await terminateBackend(rows[0]!.pid);
        // Give the socket's end time to arrive while no query is running on it.
        await waitUntil(() => uncaught.length > 0, 500);
        await sql`select 1`.execute(transaction);
      })
      .then(
        () => 'committed',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );

    expect(await outcome).not.toBe('committed');
    expect(uncaught).toEqual([]);
    const { rows } = await sql<{ answer: number }>`select 41 + 1 as answer`.execute(store.db);
    expect(rows[0]!.answer).toBe(42);
  });
});

async function terminateBackend(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: inject('postgresAdminUrl') });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

async function waitUntil(condition: () => boolean, milliseconds: number): Promise<void> {
  const deadline = Date.now() + milliseconds;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
