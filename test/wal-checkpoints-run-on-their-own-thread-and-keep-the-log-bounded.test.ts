/**
 * Proves SQLITE_CHECKPOINT_INTERVAL_MS and SQLITE_BACKSTOP_CHECKPOINT_PAGES (src/store/sqlite/wal-checkpoint-thread.ts):
 * a server's SQLite commits leave the write-ahead log to a thread of its own, which copies it into
 * the database file; the event loop's connection checkpoints only at the backstop, and without the
 * thread at SQLite's 1,000 pages as before; closing the store ends the thread, so the log goes with
 * the last connection; 50 writers at once while the thread copies lose nothing.
 *
 * What is observed is the database file itself: it grows only when a checkpoint copies the log's
 * pages into it. A transaction of about 2,500 pages (one 4,000-byte row a page) stays in the log
 * until someone checkpoints.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../src/store/schema.js';
import { SQLITE_FILE_NAME } from '../src/store/store.js';
import { checkpointOnThread, SQLITE_DEFAULT_CHECKPOINT_PAGES } from '../src/store/sqlite/wal-checkpoint-thread.js';
import { createTestDatabase } from './support/test-databases.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const ROWS = 2_500;
const ROW_BYTES = 4_000;
/** The log's pages fill the file to at least this when copied in. */
const COPIED_BYTES = ROWS * ROW_BYTES;

function databaseFile(server: TestServer): string {
  return path.join(server.database.dataDirectory, SQLITE_FILE_NAME);
}

function fileBytes(file: string): number {
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
}

async function walAutocheckpoint(db: Kysely<Database>): Promise<number> {
  const result = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
  return result.rows[0]!.wal_autocheckpoint;
}

/** One transaction of ROWS rows, one page each; resolves once committed. */
async function writeLargeTransaction(db: Kysely<Database>, table: string): Promise<void> {
  await sql`create table ${sql.table(table)} (id integer primary key, payload blob not null)`.execute(db);
  await db.transaction().execute(async (transaction) => {
    await sql`insert into ${sql.table(table)} (payload)
      select randomblob(${ROW_BYTES}) from (with recursive counter(value) as (select 1 union all select value + 1 from counter where value < ${ROWS}) select value from counter)`.execute(
      transaction,
    );
  });
}

describe("SQLite's WAL checkpoints", () => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('run on a thread of their own: a commit leaves the log, and the thread copies it into the database file', async () => {
    server = await startTestServer('sqlite', { environment: { SQLITE_CHECKPOINT_INTERVAL_MS: '50' } });
    // SQLite's default would checkpoint inside this commit; the event loop's connection now waits for 10,000 pages.
    expect(await walAutocheckpoint(server.store.db)).toBe(10_000);
    const file = databaseFile(server);
    expect(fileBytes(file)).toBeLessThan(COPIED_BYTES);
    await writeLargeTransaction(server.store.db, 'wal_thread_rows');
    await expect.poll(() => fileBytes(file), { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(COPIED_BYTES);
    const counted = await sql<{ rows: number }>`select count(*) as rows from wal_thread_rows`.execute(server.store.db);
    expect(counted.rows[0]!.rows).toBe(ROWS);
  });

  it('fall to the event loop at the backstop, so the log stays bounded when the thread does not keep up', async () => {
    // The thread's first checkpoint would come after a minute: only the backstop can copy the log now.
    server = await startTestServer('sqlite', {
      environment: { SQLITE_CHECKPOINT_INTERVAL_MS: '60000', SQLITE_BACKSTOP_CHECKPOINT_PAGES: '1000' },
    });
    expect(await walAutocheckpoint(server.store.db)).toBe(1_000);
    await writeLargeTransaction(server.store.db, 'wal_backstop_rows');
    // Checkpointed inside the commit, before it resolved.
    expect(fileBytes(databaseFile(server))).toBeGreaterThanOrEqual(COPIED_BYTES);
  });

  it('stay inside the commits, at 1,000 pages, with SQLITE_CHECKPOINT_INTERVAL_MS=0', async () => {
    server = await startTestServer('sqlite', {
      environment: { SQLITE_CHECKPOINT_INTERVAL_MS: '0', SQLITE_BACKSTOP_CHECKPOINT_PAGES: '50000' },
    });
    expect(await walAutocheckpoint(server.store.db)).toBe(SQLITE_DEFAULT_CHECKPOINT_PAGES);
    await writeLargeTransaction(server.store.db, 'wal_inline_rows');
    expect(fileBytes(databaseFile(server))).toBeGreaterThanOrEqual(COPIED_BYTES);
  });

  it('end with the store: closing it leaves no log behind, and every row is in the file', async () => {
    // A database of the test's own, which the server's close leaves in place.
    const database = await createTestDatabase('sqlite', { migrated: true });
    const started = await startTestServer('sqlite', { database, environment: { SQLITE_CHECKPOINT_INTERVAL_MS: '60000' } });
    const file = databaseFile(started);
    await writeLargeTransaction(started.store.db, 'wal_closed_rows');
    expect(fileBytes(`${file}-wal`)).toBeGreaterThan(0);
    await started.close();
    // SQLite removes the log when the last connection to the file closes: the thread's is closed too.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const reopened = new SqliteDatabase(file, { readonly: true });
    try {
      expect(reopened.prepare('select count(*) as rows from wal_closed_rows').get()).toEqual({ rows: ROWS });
    } finally {
      reopened.close();
      await database.drop();
    }
  });

  it('lose nothing when 50 writers commit at once while the thread copies', async () => {
    server = await startTestServer('sqlite', { environment: { SQLITE_CHECKPOINT_INTERVAL_MS: '1' } });
    const db = server.store.db;
    await sql`create table wal_concurrent_rows (id integer primary key, writer integer not null, payload blob not null)`.execute(db);
    await Promise.all(
      Array.from({ length: 50 }, (_, writer) =>
        db.transaction().execute(async (transaction) => {
          await sql`insert into wal_concurrent_rows (writer, payload)
            select ${writer}, randomblob(${ROW_BYTES}) from (with recursive counter(value) as (select 1 union all select value + 1 from counter where value < 100) select value from counter)`.execute(
            transaction,
          );
        }),
      ),
    );
    const counted = await sql<{
      writers: number;
      rows: number;
    }>`select count(distinct writer) as writers, count(*) as rows from wal_concurrent_rows`.execute(db);
    expect(counted.rows[0]).toEqual({ writers: 50, rows: 5_000 });
    await expect.poll(() => fileBytes(databaseFile(server!)), { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(5_000 * ROW_BYTES);
    const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db);
    expect(integrity.rows).toEqual([{ integrity_check: 'ok' }]);
  });
});

describe('a checkpoint thread that ends on its own', () => {
  it("gives its connection back SQLite's 1,000 pages, so the log never waits for a thread that is gone", async () => {
    const database = await createTestDatabase('sqlite');
    const file = path.join(database.dataDirectory, 'gone.sqlite');
    const connection = new SqliteDatabase(file);
    try {
      connection.pragma('journal_mode = WAL');
      // The thread opens the file only if it exists: renamed away first, its opening fails and it ends.
      fs.renameSync(file, `${file}.moved`);
      const thread = checkpointOnThread(connection, { intervalMilliseconds: 10, backstopPages: 20_000 });
      expect(connection.pragma('wal_autocheckpoint', { simple: true })).toBe(20_000);
      await expect
        .poll(() => connection.pragma('wal_autocheckpoint', { simple: true }), { timeout: 30_000 })
        .toBe(SQLITE_DEFAULT_CHECKPOINT_PAGES);
      await thread.stop();
    } finally {
      connection.close();
      await database.drop();
    }
  });
});
