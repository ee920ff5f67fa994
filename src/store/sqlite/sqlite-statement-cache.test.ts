// Proves the SQLite statement cache on a real in-memory database: the same SQL text gets the same
// prepared statement back, at most `capacity` are kept (the least recently used goes), a statement
// still being iterated is never handed out twice, a capacity of 0 prepares every time, and cached
// statements keep working after the schema changes.
import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cacheStatements } from './sqlite-statement-cache.js';

function openDatabase(capacity: number): SqliteDatabase.Database {
  const connection = cacheStatements(new SqliteDatabase(':memory:'), capacity);
  connection.exec('create table notes (id integer primary key, text text)');
  connection.prepare('insert into notes (text) values (?)').run('first');
  connection.prepare('insert into notes (text) values (?)').run('second');
  return connection;
}

describe('cacheStatements', () => {
  it('hands back the same prepared statement for the same SQL text', () => {
    const connection = openDatabase(8);
    const statement = connection.prepare('select text from notes where id = ?');
    expect(connection.prepare('select text from notes where id = ?')).toBe(statement);
    expect(connection.prepare('select text from notes where id = ?').get(2)).toEqual({ text: 'second' });
  });

  it('keeps at most `capacity` statements, forgetting the least recently used', () => {
    const connection = openDatabase(2);
    const first = connection.prepare('select 1');
    const second = connection.prepare('select 2');
    expect(connection.prepare('select 1')).toBe(first);
    connection.prepare('select 3');
    expect(connection.prepare('select 1')).toBe(first);
    expect(connection.prepare('select 2')).not.toBe(second);
  });

  it('gives a fresh statement while the cached one is still being iterated', () => {
    const connection = openDatabase(8);
    const rows = connection.prepare('select text from notes order by id').iterate();
    const first = rows.next();
    const again = connection.prepare('select text from notes order by id');
    expect(again.all()).toEqual([{ text: 'first' }, { text: 'second' }]);
    expect(first.value).toEqual({ text: 'first' });
    expect(rows.next().value).toEqual({ text: 'second' });
  });

  it('prepares every time with a capacity of 0', () => {
    const connection = openDatabase(0);
    expect(connection.prepare('select 1')).not.toBe(connection.prepare('select 1'));
  });

  it('keeps cached statements working after the schema changes', () => {
    const connection = openDatabase(8);
    const select = 'select * from notes where id = ?';
    expect(connection.prepare(select).get(1)).toEqual({ id: 1, text: 'first' });
    connection.exec("alter table notes add column tag text default 'none'");
    expect(connection.prepare(select).get(1)).toEqual({ id: 1, text: 'first', tag: 'none' });
  });
});
