// Proves a precompiled query on a real in-memory SQLite: each named value lands in its own place
// (two integers swapped would answer other rows), constants built into the query stay, a value
// used twice is filled twice, and each database handle gets its own compiled text.
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { precompiledQuery } from './precompiled-query.js';

interface Tables {
  pairs: { id: number; left_value: number; right_value: number; label: string };
}

function openDatabase(): Kysely<Tables> {
  const connection = new SqliteDatabase(':memory:');
  connection.exec('create table pairs (id integer primary key, left_value integer, right_value integer, label text)');
  const insert = connection.prepare('insert into pairs (left_value, right_value, label) values (?, ?, ?)');
  insert.run(1, 2, 'one-two');
  insert.run(2, 1, 'two-one');
  insert.run(2, 2, 'two-two');
  insert.run(1, 2, 'hidden');
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: connection }) });
}

const byPair = precompiledQuery(['left', 'right'], (db: Kysely<Tables>, { left, right }) =>
  db
    .selectFrom('pairs')
    .select('label')
    .where('left_value', '=', left)
    .where('right_value', '=', right)
    .where('label', '!=', 'hidden')
    .orderBy('id'),
);

const sameOnBothSides = precompiledQuery(['value'], (db: Kysely<Tables>, { value }) =>
  db.selectFrom('pairs').select('label').where('left_value', '=', value).where('right_value', '=', value),
);

describe('precompiledQuery', () => {
  it('puts each named value in its own place and keeps the constants', async () => {
    const db = openDatabase();
    expect(await byPair(db, { left: 1, right: 2 })).toEqual([{ label: 'one-two' }]);
    expect(await byPair(db, { left: 2, right: 1 })).toEqual([{ label: 'two-one' }]);
    expect(await byPair(db, { left: 3, right: 3 })).toEqual([]);
  });

  it('fills a value used twice in both places', async () => {
    expect(await sameOnBothSides(openDatabase(), { value: 2 })).toEqual([{ label: 'two-two' }]);
  });

  it('runs on each database handle it is given, against that one', async () => {
    const first = openDatabase();
    const second = openDatabase();
    await second.deleteFrom('pairs').where('label', '=', 'two-one').execute();
    expect(await byPair(first, { left: 2, right: 1 })).toEqual([{ label: 'two-one' }]);
    expect(await byPair(second, { left: 2, right: 1 })).toEqual([]);
  });

  it('refuses a query that does not use a value as a parameter, instead of ignoring the value', async () => {
    const inlined = precompiledQuery(['label', 'unused'], (db: Kysely<Tables>, { label }) =>
      db.selectFrom('pairs').select('label').where('label', '=', label),
    );
    await expect(inlined(openDatabase(), { label: 'one-two', unused: 1 })).rejects.toThrow('never uses unused');
  });
});
