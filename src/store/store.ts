/**
 * Opens the store: the embedded SQLite file in the data folder by default, or PostgreSQL when a
 * DATABASE_URL is given. Migrations run here, at every start, and are idempotent; on PostgreSQL,
 * Kysely's migration lock keeps several starting processes from migrating at once. The store also
 * reports how it can search embedding vectors: sqlite-vec loaded into SQLite, pgvector's `vector`
 * column on PostgreSQL, or else a scan in the application (see chunk-vector-repository.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteAdapter, type DialectAdapter } from 'kysely';
import * as sqliteVec from 'sqlite-vec';
import type { VectorBackend } from './chunk-vector-repository.js';
import type { Dialect } from './dialect.js';
import { allMigrations } from './migrations/index.js';
import { preparingPool } from './postgres-prepared-statements.js';
import { QueuedSqliteDialect } from './sqlite/sqlite-connection-queue.js';
import { cacheStatements } from './sqlite/sqlite-statement-cache.js';
import type { Database } from './schema.js';
import { checkpointOnThread, type WalCheckpointOptions, type WalCheckpointThread } from './sqlite/wal-checkpoint-thread.js';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** How embedding vectors are searched here, detected at open. */
  vectorBackend: VectorBackend;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl: string | undefined;
  dataDirectory: string;
  poolSize: number;
  /** SQLite prepared statements kept per process (SQLITE_STATEMENT_CACHE_SIZE); 0 prepares every query anew. */
  statementCacheSize?: number;
  /** PostgreSQL statements each connection keeps prepared (POSTGRES_PREPARED_STATEMENTS_MAXIMUM); 0 prepares none. */
  preparedStatementsMaximum?: number;
  /** SQLite's page cache of the process's connection, in MiB (SQLITE_CACHE_MB). */
  cacheMegabytes?: number;
  /** False leaves the schema as it is (`merino migrations` reports what is pending, `merino backup` copies the store untouched). */
  migrate?: boolean;
  /**
   * SQLite's WAL checkpoints on a thread of their own (sqlite/wal-checkpoint-thread.ts), for a server;
   * without it, or with an interval of 0, SQLite checkpoints inside the commits, as a short-lived
   * command's store does.
   */
  checkpoints?: WalCheckpointOptions;
}

/** SQLITE_STATEMENT_CACHE_SIZE's default, for the stores tests and tools open without settings. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 256;
/** POSTGRES_PREPARED_STATEMENTS_MAXIMUM's default, likewise. */
const DEFAULT_PREPARED_STATEMENTS_MAXIMUM = 128;
/** SQLITE_CACHE_MB's default, likewise. */
export const DEFAULT_SQLITE_CACHE_MEGABYTES = 64;

export const SQLITE_FILE_NAME = 'merino.sqlite';
/** How long SQLite waits for another connection's write lock before failing. */
const SQLITE_BUSY_TIMEOUT_MILLISECONDS = 5_000;
/** How long a PostgreSQL connection attempt may take before the store reports it unavailable. */
const POSTGRES_CONNECT_TIMEOUT_MILLISECONDS = 10_000;
/** How often a SQLite start-up that lost the migration race to another process tries again. */
const SQLITE_MIGRATION_ATTEMPTS = 5;
const SQLITE_MIGRATION_RETRY_DELAY_MILLISECONDS = 200;

/**
 * SQLite does run DDL inside transactions, but Kysely's adapter says it does not, so its migrator
 * would apply migrations statement by statement, with no lock: a crash could leave half a schema
 * and two processes starting together could both migrate. Declaring the truth makes every
 * migration one transaction; a process that loses the race fails its transaction and retries.
 */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class MerinoSqliteDialect extends QueuedSqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalSqliteAdapter();
  }
}

/** How a SQLite store is opened: where, and what it may keep in memory. */
interface SqliteOptions {
  dataDirectory: string;
  statementCacheSize: number;
  cacheMegabytes: number;
}

interface OpenedSqlite {
  db: Kysely<Database>;
  vectorBackend: VectorBackend;
  connection: SqliteDatabase.Database;
}

function openSqlite(options: SqliteOptions): OpenedSqlite {
  fs.mkdirSync(options.dataDirectory, { recursive: true });
  const connection = new SqliteDatabase(path.join(options.dataDirectory, SQLITE_FILE_NAME));
  // WAL keeps readers unblocked by a writer and, with synchronous=NORMAL, a killed process
  // never leaves a half-written transaction behind.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  // Temporary data (statement journals, sorts, the rows RETURNING gathers) in memory. With SQLite's
  // default, temporary files, a statement needing any set a temporary database up and dropped it
  // again, growing and shrinking the heap each time: the chat's two-row rate-limit upsert with
  // RETURNING took 158 µs on its own against 22 with this (docs/knowledge-bases.md, thirteenth
  // pass).
  connection.pragma('temp_store = MEMORY');
  // A negative size is in KiB. An ingestion batch dirties a page of the postings' index per
  // distinct term (thousands); a cache smaller than that spills them to the WAL mid-transaction.
  connection.pragma(`cache_size = -${options.cacheMegabytes * 1024}`);
  connection.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MILLISECONDS}`);
  let vectorBackend: VectorBackend = 'scan';
  try {
    sqliteVec.load(connection);
    vectorBackend = 'sqlite-vec';
  } catch {
    // No sqlite-vec build for this platform, or extensions refused: vector search scans instead.
  }
  const database = cacheStatements(connection, options.statementCacheSize);
  return { db: new Kysely<Database>({ dialect: new MerinoSqliteDialect({ database }) }), vectorBackend, connection };
}

/** The driver is loaded only when PostgreSQL is the store: a SQLite server never pays its memory. */
async function openPostgres(databaseUrl: string, poolSize: number, preparedStatementsMaximum: number): Promise<Kysely<Database>> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MILLISECONDS,
  });
  // A client losing its server must never end the process; its next query reports the loss. The
  // pool listens only while a client is idle: one checked out between two statements of a
  // transaction would otherwise emit an 'error' nobody hears, an uncaught exception.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool, preparedStatementsMaximum) }) });
}

/** What went wrong, in words: an Error's message, or whatever else was thrown, as text. */
function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function migrateOnce(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => allMigrations(dialect) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${reasonOf(error)}`);
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

export async function migrateStore(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await migrateOnce(db, dialect);
    } catch (error) {
      if (dialect !== 'sqlite' || attempt >= SQLITE_MIGRATION_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, SQLITE_MIGRATION_RETRY_DELAY_MILLISECONDS * attempt));
    }
  }
}

/** pgvector when migration 0007 could give the embedding column pgvector's type, else a scan. */
async function detectPostgresVectorBackend(db: Kysely<Database>): Promise<VectorBackend> {
  const result = await sql<{ type_name: string }>`
    select t.typname as type_name
    from pg_attribute a join pg_type t on t.oid = a.atttypid
    where a.attrelid = to_regclass('kb_chunk_embeddings') and a.attname = 'embedding' and not a.attisdropped`.execute(db);
  return result.rows[0]?.type_name === 'vector' ? 'pgvector' : 'scan';
}

function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const dialect: Dialect = options.databaseUrl === undefined ? 'sqlite' : 'postgres';
  const opened =
    options.databaseUrl === undefined
      ? openSqlite({
          dataDirectory: options.dataDirectory,
          statementCacheSize: options.statementCacheSize ?? DEFAULT_STATEMENT_CACHE_SIZE,
          cacheMegabytes: options.cacheMegabytes ?? DEFAULT_SQLITE_CACHE_MEGABYTES,
        })
      : {
          db: await openPostgres(
            options.databaseUrl,
            options.poolSize,
            options.preparedStatementsMaximum ?? DEFAULT_PREPARED_STATEMENTS_MAXIMUM,
          ),
          vectorBackend: undefined,
          connection: undefined,
        };
  const db = opened.db;
  if (options.databaseUrl !== undefined) {
    try {
      await sql`select 1`.execute(db);
    } catch (error) {
      await db.destroy();
      // Never echo the URL itself: it may carry the password.
      // eslint-disable-next-line preserve-caught-error -- no cause on purpose: this message is what gets logged, and the driver's error may name the connection.
      throw new Error(`Cannot reach PostgreSQL at ${describeDatabase(options.databaseUrl)}: ${reasonOf(error)}`);
    }
  }
  let vectorBackend: VectorBackend;
  try {
    if (options.migrate !== false) await migrateStore(db, dialect);
    vectorBackend = opened.vectorBackend ?? (await detectPostgresVectorBackend(db));
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // Started once migrated: the thread's connection then opens a file whose schema is complete.
  const checkpoints = checkpointThreadFor(opened.connection, options.checkpoints);
  return {
    db,
    dialect,
    vectorBackend,
    close: async () => {
      // Both connections to the file close before this resolves, so SQLite removes the log with the last.
      await checkpoints?.stop();
      await db.destroy();
    },
  };
}

function checkpointThreadFor(
  connection: SqliteDatabase.Database | undefined,
  checkpoints: WalCheckpointOptions | undefined,
): WalCheckpointThread | undefined {
  if (connection === undefined || checkpoints === undefined || checkpoints.intervalMilliseconds === 0) return undefined;
  return checkpointOnThread(connection, checkpoints);
}
