// On a real PostgreSQL, through a store of one connection (so every statement below runs on the
// connection whose prepared statements `pg_prepared_statements` lists): the precompiled queries a
// request runs are prepared once, other queries are not, POSTGRES_PREPARED_STATEMENTS_MAXIMUM=0
// prepares none, and a prepared `select *` whose table gains a column meanwhile (another process
// migrating) still answers, prepared again under a new name.
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { findLiveFileByPath } from '../src/store/files-repository.js';
import { countRateLimitEvents } from '../src/store/rate-limit-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { createTestDatabase, type TestDatabase } from './support/test-databases.js';

const opened: Array<{ store: Store; database: TestDatabase }> = [];

afterEach(async () => {
  for (const { store, database } of opened.splice(0)) {
    await store.close();
    await database.drop();
  }
});

async function storeOfOneConnection(preparedStatementsMaximum?: number): Promise<{ store: Store; database: TestDatabase }> {
  const database = await createTestDatabase('postgres', { migrated: true });
  const store = await openStore({
    databaseUrl: database.databaseUrl,
    dataDirectory: database.dataDirectory,
    poolSize: 1,
    migrate: false,
    ...(preparedStatementsMaximum === undefined ? {} : { preparedStatementsMaximum }),
  });
  opened.push({ store, database });
  return { store, database };
}

async function preparedTexts(store: Store): Promise<Array<{ name: string; statement: string }>> {
  const result = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(
    store.db,
  );
  return result.rows;
}

describe('PostgreSQL prepared statements', () => {
  it('prepares the queries every request runs once per connection, and no other query', async () => {
    const { store } = await storeOfOneConnection();
    for (let run = 0; run < 3; run += 1) {
      expect(await findLiveFileByPath(store.db, '7/notes.md')).toBeUndefined();
      const counts = await countRateLimitEvents(store.db, new Map([['user:7', 1]]), 1_000_000 + run, 60_000);
      expect(counts.get('user:7')?.count).toBe(run + 1);
    }
    await store.db.selectFrom('users').select('id').where('email', '=', 'nobody@example.test').execute();
    const prepared = await preparedTexts(store);
    expect(prepared).toHaveLength(2);
    expect(prepared.some(({ statement }) => statement.includes('from "files"') && statement.includes('"file_path" = $1'))).toBe(true);
    expect(prepared.some(({ statement }) => statement.includes('insert into rate_limit_counters'))).toBe(true);
    expect(prepared.every(({ name }) => name.startsWith('merino_'))).toBe(true);
  });

  it('prepares none when POSTGRES_PREPARED_STATEMENTS_MAXIMUM is 0, and answers the same', async () => {
    const { store } = await storeOfOneConnection(0);
    for (let run = 0; run < 2; run += 1) {
      expect(await findLiveFileByPath(store.db, '7/notes.md')).toBeUndefined();
      const counts = await countRateLimitEvents(store.db, new Map([['user:7', 2]]), 1_000_000 + run, 60_000);
      expect(counts.get('user:7')?.count).toBe(2 * (run + 1));
    }
    expect(await preparedTexts(store)).toEqual([]);
  });

  it('answers a prepared select * after its table gained a column, prepared again under a new name', async () => {
    const { store, database } = await storeOfOneConnection();
    expect(await findLiveFileByPath(store.db, '7/notes.md')).toBeUndefined();
    const before = (await preparedTexts(store)).filter(({ statement }) => statement.includes('from "files"'));
    expect(before).toHaveLength(1);

    const other = new pg.Client({ connectionString: database.databaseUrl });
    await other.connect();
    try {
      await other.query('alter table files add column migrated_note text');
    } finally {
      await other.end();
    }

    expect(await findLiveFileByPath(store.db, '7/notes.md')).toBeUndefined();
    const after = (await preparedTexts(store)).filter(({ statement }) => statement.includes('from "files"'));
    expect(after).toHaveLength(2);
    expect(after.map(({ name }) => name)).toContain(before[0]!.name);
  });
});
