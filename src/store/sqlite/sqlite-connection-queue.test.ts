// Proves the queued SQLite driver on a real in-memory database: queries issued while a transaction
// holds the connection run after it ends, every one of them, in the order they were issued; a
// transaction that fails hands the connection on as one that commits does; and 50 transactions
// started at once each see the connection alone, so none of their read-then-write pairs interleave.
import SqliteDatabase from 'better-sqlite3';
import { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { QueuedSqliteDialect } from './sqlite-connection-queue.js';

interface Tables {
  counters: { id: number; value: number };
}

function openDatabase(): Kysely<Tables> {
  const connection = new SqliteDatabase(':memory:');
  connection.exec('create table counters (id integer primary key, value integer not null); insert into counters values (1, 0)');
  return new Kysely<Tables>({ dialect: new QueuedSqliteDialect({ database: connection }) });
}

async function readValue(db: Kysely<Tables>): Promise<number> {
  const row = await db.selectFrom('counters').select('value').where('id', '=', 1).executeTakeFirstOrThrow();
  return row.value;
}

/** Lets the event loop turn, so queries issued meanwhile really wait. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('QueuedSqliteDialect', () => {
  it('runs the queries that waited for a transaction after it, in the order they were issued', async () => {
    const db = openDatabase();
    let releaseTransaction = (): void => undefined;
    const held = new Promise<void>((resolve) => (releaseTransaction = resolve));
    const transaction = db.transaction().execute(async (inside) => {
      await inside.updateTable('counters').set({ value: 7 }).where('id', '=', 1).execute();
      await held;
    });
    await nextTurn();
    const finished: number[] = [];
    const waiting = Array.from({ length: 50 }, (_, index) =>
      readValue(db).then((value) => {
        finished.push(index);
        return value;
      }),
    );
    await nextTurn();
    expect(finished).toEqual([]);
    releaseTransaction();
    await transaction;
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 50 }, () => 7));
    expect(finished).toEqual(Array.from({ length: 50 }, (_, index) => index));
    await db.destroy();
  });

  it('hands the connection on when a transaction fails', async () => {
    const db = openDatabase();
    const failing = db.transaction().execute(async (inside) => {
      await inside.updateTable('counters').set({ value: 99 }).where('id', '=', 1).execute();
      await nextTurn();
      throw new Error('the caller gave up');
    });
    const after = readValue(db);
    await expect(failing).rejects.toThrow('the caller gave up');
    expect(await after).toBe(0);
    await db.destroy();
  });

  it('gives 50 transactions started at once the connection one at a time', async () => {
    const db = openDatabase();
    await Promise.all(
      Array.from({ length: 50 }, () =>
        db.transaction().execute(async (inside) => {
          const value = await readValue(inside);
          await nextTurn();
          await inside
            .updateTable('counters')
            .set({ value: value + 1 })
            .where('id', '=', 1)
            .execute();
        }),
      ),
    );
    expect(await readValue(db)).toBe(50);
    await db.destroy();
  });
});
