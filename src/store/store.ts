/**
 * Opens the store: the embedded SQLite file in the data folder by default, or PostgreSQL when a
 * DATABASE_URL is given. Migrations run here, at every start, and are idempotent; on PostgreSQL,
 * Kysely's migration lock keeps several starting processes from migrating at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Dialect } from './dialect.js';
import { allMigrations } from './migrations/index.js';
import type { Database } from './schema.js';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl: string | undefined;
  dataDirectory: string;
  poolSize: number;
}

export const SQLITE_FILE_NAME = 'merino.sqlite';
/** How long SQLite waits for another connection's write lock before failing. */
const SQLITE_BUSY_TIMEOUT_MILLISECONDS = 5_000;
/** How long a PostgreSQL connection attempt may take before the store reports it unavailable. */
const POSTGRES_CONNECT_TIMEOUT_MILLISECONDS = 10_000;

function openSqlite(dataDirectory: string): Kysely<Database> {
  fs.mkdirSync(dataDirectory, { recursive: true });
  const connection = new SqliteDatabase(path.join(dataDirectory, SQLITE_FILE_NAME));
  // WAL keeps readers unblocked by a writer and, with synchronous=NORMAL, a killed process
  // never leaves a half-written transaction behind.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
  connection.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MILLISECONDS}`);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
}

function openPostgres(databaseUrl: string, poolSize: number): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MILLISECONDS,
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

export async function migrateStore(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => allMigrations(dialect) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const dialect: Dialect = options.databaseUrl === undefined ? 'sqlite' : 'postgres';
  const db = options.databaseUrl === undefined
    ? openSqlite(options.dataDirectory)
    : openPostgres(options.databaseUrl, options.poolSize);
  try {
    await migrateStore(db, dialect);
  } catch (error) {
    await db.destroy();
    if (options.databaseUrl !== undefined && !(error instanceof Error && error.message.startsWith('Database migration'))) {
      // Never echo the URL itself: it may carry the password.
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Cannot reach PostgreSQL at ${describeDatabase(options.databaseUrl)}: ${reason}`);
    }
    throw error;
  }
  return { db, dialect, close: () => db.destroy() };
}
