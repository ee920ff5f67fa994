/**
 * SQLite's WAL checkpoints on a thread of their own. A checkpoint copies the pages the write-ahead
 * log holds back into the database file and, with `synchronous = NORMAL`, syncs both files to disk
 * first and last. SQLite runs one inside any commit that leaves 1,000 pages or more in the log, so
 * on the one connection a process has, the event loop waited for the copy and both syncs. Measured
 * on better-sqlite3 alone (the DBpedia abstracts' postings, 200 abstracts a transaction, 10,000 in
 * the table): a commit cost 2.9 to 3.0 µs a posting with those checkpoints, 1.2 with the syncs off
 * and 0.9 with no checkpoint at all, so most of it was waiting for the disk.
 *
 * Here a worker thread keeps a connection of its own to the file and checkpoints PASSIVE every
 * interval: it copies what it can without waiting for, or blocking, any reader or writer. The event
 * loop's connection still checkpoints when the log reaches `backstopPages` (the thread fell behind,
 * or readers kept the log from starting over), so the log stays bounded whatever happens to the
 * thread; should the thread end on its own, the connection goes back to SQLite's 1,000 pages.
 * Durability is SQLite's: a checkpoint is the same operation from any connection to the file.
 *
 * The thread's program is a string run as CommonJS: the same text then runs from the compiled and
 * the TypeScript sources, with nothing to load but the SQLite driver and no TypeScript loader
 * (starting and stopping one took 65 ms of CPU, measured, most of it Node setting up the thread).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

export interface WalCheckpointOptions {
  /** How often the thread checkpoints (SQLITE_CHECKPOINT_INTERVAL_MS). */
  intervalMilliseconds: number;
  /** The log's size in pages at which the event loop's own connection checkpoints (SQLITE_BACKSTOP_CHECKPOINT_PAGES). */
  backstopPages: number;
}

export interface WalCheckpointThread {
  /** Ends the thread and closes its connection; resolves once it has. */
  stop(): Promise<void>;
}

/** SQLite's own `wal_autocheckpoint`, which a connection whose thread ended goes back to. */
export const SQLITE_DEFAULT_CHECKPOINT_PAGES = 1_000;

const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * A passive checkpoint never invokes the busy handler, and `timeout: 0` keeps the connection's
 * opening from waiting either; one with nothing to copy costs no sync. A checkpoint that fails (the
 * file busy, the disk full) leaves the log to the next one, or to the event loop's backstop.
 *
 * The thread reads nothing of the file but through SQLite. Reading how much of the log is not yet
 * copied from the WAL index (`-shm`) through a descriptor of its own was tried and dropped: closing
 * any descriptor of a file releases every POSIX lock the process holds on it, SQLite's among them.
 */
const THREAD_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const connection = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
connection.pragma('synchronous = NORMAL');
const timer = setInterval(() => {
  try {
    connection.pragma('wal_checkpoint(PASSIVE)');
  } catch {}
}, workerData.intervalMilliseconds);
parentPort.once('message', () => {
  clearInterval(timer);
  connection.close();
  parentPort.close();
});
`;

/** Starts checkpointing `connection`'s file on a thread; the connection checkpoints itself only at the backstop from then on. */
export function checkpointOnThread(connection: SqliteDatabase.Database, options: WalCheckpointOptions): WalCheckpointThread {
  const worker = new Worker(THREAD_PROGRAM, {
    eval: true,
    workerData: { driver: DRIVER, file: connection.name, intervalMilliseconds: options.intervalMilliseconds },
    // Nothing of the thread's reaches the server's output.
    stdout: true,
    stderr: true,
  });
  // A checkpointing thread never keeps the process alive.
  worker.unref();
  worker.stdout.resume();
  worker.stderr.resume();
  connection.pragma(`wal_autocheckpoint = ${options.backstopPages}`);
  let stopping = false;
  const ended = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      if (!stopping && connection.open) connection.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_CHECKPOINT_PAGES}`);
      resolve();
    });
  });
  // The thread failing to open the file, or failing later, ends it: 'exit' follows.
  worker.on('error', () => undefined);
  return {
    async stop() {
      stopping = true;
      // Held while it ends: a process with nothing else to do would otherwise exit before its stop completes.
      worker.ref();
      worker.postMessage('stop');
      await ended;
    },
  };
}
