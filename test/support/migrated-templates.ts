/**
 * Migrated templates, made once per run by the global setup, from which test servers get their
 * stores: a PostgreSQL database to copy with CREATE DATABASE … TEMPLATE, and a SQLite file to
 * copy. Creating a database and running every migration in it took about two seconds a store on
 * PostgreSQL and a few hundred milliseconds on SQLite; the copies take about a tenth of that.
 * The migrations themselves still run on fresh stores in the tests that are about them
 * (store-migrations-*, the command line's `migrations`, processes migrating at once).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openStore, SQLITE_FILE_NAME } from '../../src/store/store.js';

export interface MigratedTemplates {
  /** The migrated PostgreSQL database to copy. */
  postgresDatabase: string;
  /** The migrated SQLite file to copy. */
  sqliteFile: string;
  remove(): Promise<void>;
}

const TEMPLATE_PREFIX = 'merino_template_';

export async function createMigratedTemplates(adminUrl: string): Promise<MigratedTemplates> {
  const sqliteDirectory = await mkdtemp(path.join(os.tmpdir(), 'merino-template-sqlite-'));
  await migrate({ databaseUrl: undefined, dataDirectory: sqliteDirectory });

  const postgresDatabase = `${TEMPLATE_PREFIX}${process.pid}_${Date.now()}`;
  await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE ${postgresDatabase}`));
  await migrate({ databaseUrl: databaseUrlFor(adminUrl, postgresDatabase), dataDirectory: sqliteDirectory });

  return {
    postgresDatabase,
    sqliteFile: path.join(sqliteDirectory, SQLITE_FILE_NAME),
    remove: async () => {
      await rm(sqliteDirectory, { recursive: true, force: true });
      await withAdminClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${postgresDatabase} WITH (FORCE)`));
    },
  };
}

/** Copies the migrated SQLite file into a fresh data folder. */
export async function copySqliteTemplate(templateFile: string, dataDirectory: string): Promise<void> {
  await copyFile(templateFile, path.join(dataDirectory, SQLITE_FILE_NAME));
}

/** Opens the store once, which applies every migration, and closes it so that it can be copied. */
async function migrate(location: { databaseUrl: string | undefined; dataDirectory: string }): Promise<void> {
  const store = await openStore({ ...location, poolSize: 1 });
  await store.close();
}

/** Keeps user, password and query options of the admin URL and swaps only the database. */
export function databaseUrlFor(adminUrl: string, databaseName: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}

const ADMIN_CONNECTION_TIMEOUT_MS = 10_000;
const ADMIN_STATEMENT_TIMEOUT_MS = 30_000;

export async function withAdminClient<Result>(adminUrl: string, work: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({
    connectionString: adminUrl,
    connectionTimeoutMillis: ADMIN_CONNECTION_TIMEOUT_MS,
    statement_timeout: ADMIN_STATEMENT_TIMEOUT_MS,
  });
  // Without a listener, a connection error after connect() would crash the test process.
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
