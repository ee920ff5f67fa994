/**
 * Proves, on both stores, that `insertRowBatch` (the full-text index's bulk writes) writes every
 * row exactly once and unchanged whatever the count (SQLite takes them in statements of fixed
 * sizes, PostgreSQL as arrays through `unnest`), that texts SQL or PostgreSQL's array syntax would
 * read specially arrive as they were, that a suffix such as an upsert applies to every row, and
 * that `insertRowBatchReturningIds` (documents, jobs and chunks) answers each row's new id in the
 * order the rows were given.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRowBatch, insertRowBatchReturningIds, type RowBatchShape } from '../src/store/row-batch-insert.js';
import { openStore, type Store } from '../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';

const HOSTILE_TEXTS = [
  "it's",
  'say "hi"',
  'back\\slash',
  '{a,b}',
  'NULL',
  '',
  'comma, then',
  'line\nbreak',
  '🐑 merino',
  "'); drop table rows; --",
  '  padded  ',
  '\t',
  '"',
];

const ROWS: RowBatchShape = {
  table: 'batch_rows',
  columns: ['id', 'label', 'weight'],
  postgresTypes: ['integer', 'text', 'double precision'],
};

const OPTIONAL: RowBatchShape = {
  table: 'optional_rows',
  columns: ['id', 'label', 'weight'],
  postgresTypes: ['integer', 'text', 'double precision'],
};

const GENERATED: RowBatchShape = { table: 'generated_rows', columns: ['label'], postgresTypes: ['text'] };

const UPSERT: RowBatchShape = { ...ROWS, suffix: 'on conflict (id) do update set weight = batch_rows.weight + excluded.weight' };

function rowsNumbered(from: number, count: number): Array<[number, string, number]> {
  return Array.from({ length: count }, (_, index) => [from + index, HOSTILE_TEXTS[index % HOSTILE_TEXTS.length]!, (from + index) / 4]);
}

describe.each(TEST_DIALECTS)('batched row inserts on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    await sql`create table batch_rows (id integer primary key, label text not null, weight double precision not null)`.execute(store.db);
    await sql`create table optional_rows (id integer primary key, label text, weight double precision)`.execute(store.db);
    const generatedId = dialect === 'sqlite' ? sql`integer primary key autoincrement` : sql`serial primary key`;
    await sql`create table generated_rows (id ${generatedId}, label text not null)`.execute(store.db);
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  async function storedRows(): Promise<Array<[number, string, number]>> {
    const result = await sql<{ id: number; label: string; weight: number }>`select id, label, weight from batch_rows order by id`.execute(
      store.db,
    );
    return result.rows.map((row) => [Number(row.id as number | string), row.label, Number(row.weight as number | string)]);
  }

  it('writes every row once and unchanged, for counts on and between the statement sizes', async () => {
    const expected: Array<[number, string, number]> = [];
    let next = 1;
    for (const count of [1, 3, 4, 5, 17, 256, 257, 1300]) {
      const rows = rowsNumbered(next, count);
      await insertRowBatch(store.db, ROWS, rows.flat());
      expected.push(...rows);
      next += count;
    }
    await insertRowBatch(store.db, ROWS, []);
    expect(await storedRows()).toEqual(expected);
  });

  it('applies its suffix to every row, inside the caller’s transaction', async () => {
    await sql`delete from batch_rows`.execute(store.db);
    const rows = rowsNumbered(1, 300);
    await insertRowBatch(store.db, ROWS, rows.flat());
    await store.db.transaction().execute((transaction) => insertRowBatch(transaction, UPSERT, rows.flat()));
    expect(await storedRows()).toEqual(rows.map(([id, label, weight]) => [id, label, weight * 2]));
    await expect(
      store.db.transaction().execute(async (transaction) => {
        await insertRowBatch(transaction, UPSERT, rows.flat());
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await storedRows()).toEqual(rows.map(([id, label, weight]) => [id, label, weight * 2]));
  });

  it('fails the whole batch, writing none of it, when one row breaks a constraint', async () => {
    await sql`delete from batch_rows`.execute(store.db);
    const rows = rowsNumbered(1, 40);
    await expect(
      store.db.transaction().execute((transaction) => insertRowBatch(transaction, ROWS, [...rows, rows[7]!].flat())),
    ).rejects.toThrow();
    expect(await storedRows()).toEqual([]);
  });

  it('keeps nulls as nulls, and numbers whatever their size, as they were', async () => {
    const rows = [
      [1, null, 1e21],
      [2, 'NULL', null],
      [3, '', 1e-7],
      [4, null, -2.5],
      [5, 'x', 123_456_789.125],
    ];
    await insertRowBatch(store.db, OPTIONAL, rows.flat());
    const stored = await sql<{
      id: number | string;
      label: string | null;
      weight: number | string | null;
    }>`select id, label, weight from optional_rows order by id`.execute(store.db);
    expect(stored.rows.map((row) => [Number(row.id), row.label, row.weight === null ? null : Number(row.weight)])).toEqual(rows);
  });

  it('refuses a value that is neither a number, a text nor null, writing nothing', async () => {
    await expect(insertRowBatch(store.db, OPTIONAL, [10, { label: 'an object' }, 1])).rejects.toThrow();
    const stored = await sql<{ count: number | string }>`select count(*) as count from optional_rows where id = 10`.execute(store.db);
    expect(Number(stored.rows[0]!.count)).toBe(0);
  });

  it('refuses values that are not whole rows, writing nothing', async () => {
    await sql`delete from batch_rows`.execute(store.db);
    const values = rowsNumbered(1, 5).flat();
    await expect(insertRowBatch(store.db, ROWS, values.slice(0, -1))).rejects.toThrow('14 values are not whole rows of 3 columns');
    expect(await storedRows()).toEqual([]);
  });

  it('answers the new ids in the order the rows were given, for counts on and between the statement sizes', async () => {
    for (const count of [1, 5, 256, 300]) {
      const labels = Array.from({ length: count }, (_, index) => `${count}-${index} ${HOSTILE_TEXTS[index % HOSTILE_TEXTS.length]!}`);
      const ids = await store.db.transaction().execute((transaction) => insertRowBatchReturningIds(transaction, GENERATED, labels));
      expect(ids).toHaveLength(count);
      const stored = await sql<{
        id: number | string;
        label: string;
      }>`select id, label from generated_rows where label like ${`${count}-%`}`.execute(store.db);
      const labelOf = new Map(stored.rows.map((row) => [Number(row.id), row.label]));
      expect(ids.map((id) => labelOf.get(id))).toEqual(labels);
    }
    expect(await insertRowBatchReturningIds(store.db, GENERATED, [])).toEqual([]);
  });
});
