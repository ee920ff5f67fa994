// Gives each test its own empty store: a fresh PostgreSQL database on the run's cluster, or a
// fresh folder for the SQLite file, so tests can run in parallel without seeing each other's rows.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';

export type Dialect = 'sqlite' | 'postgres';

/**
 * Every suite runs on both stores. MERINO_TEST_DIALECTS=sqlite narrows that for runs that repeat
 * the suites many times over (mutation testing, docs/mutation-testing.md), where PostgreSQL would
 * multiply the time without checking anything the mutated code decides.
 */
export const TEST_DIALECTS: readonly Dialect[] = dialectsToTest(process.env.MERINO_TEST_DIALECTS);

function dialectsToTest(setting: string | undefined): readonly Dialect[] {
  if (setting === undefined || setting.trim() === '') return ['sqlite', 'postgres'];
  const named = setting.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => name !== 'sqlite' && name !== 'postgres');
  if (unknown.length > 0)
    throw new Error(`MERINO_TEST_DIALECTS names unknown dialects: ${unknown.join(', ')}; use sqlite, postgres or both.`);
  return [...new Set(named)] as Dialect[];
}

export interface TestDatabase {
  dialect: Dialect;
  /** For postgres: postgres://merino@127.0.0.1:<port>/<fresh db>. For sqlite: undefined. */
  databaseUrl: string | undefined;
  /** A fresh empty temp folder; the SQLite file will live here (the app's DATA_DIR). */
  dataDirectory: string;
  /** What points a Merino process at this database: DATA_DIR, and for postgres DATABASE_URL with the shared MERINO_SECRET_KEY it requires. */
  environment: Record<string, string>;
  /** Drops the postgres database (terminating its connections first) and removes the folder. */
  drop(): Promise<void>;
}

/** The key every test process on one PostgreSQL database shares, as production processes must. */
export const TEST_SHARED_SECRET_KEY = 'the secret key every test process shares';

const ADMIN_CONNECTION_TIMEOUT_MS = 10_000;
const ADMIN_STATEMENT_TIMEOUT_MS = 30_000;
const DATABASE_NAME_PREFIX = 'merino_test_';

export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const dataDirectory = await mkdtemp(path.join(os.tmpdir(), `merino-test-${dialect}-`));

  if (dialect === 'sqlite') {
    return {
      dialect,
      databaseUrl: undefined,
      dataDirectory,
      environment: { DATA_DIR: dataDirectory },
      drop: once(async () => {
        await rm(dataDirectory, { recursive: true, force: true });
      }),
    };
  }

  const adminUrl = inject('postgresAdminUrl');
  // Random rather than per-worker names, so parallel files and leftovers of an aborted run
  // can never collide.
  const databaseName = `${DATABASE_NAME_PREFIX}${randomBytes(8).toString('hex')}`;
  try {
    await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}`));
  } catch (error) {
    await rm(dataDirectory, { recursive: true, force: true });
    throw error;
  }

  const databaseUrl = databaseUrlFor(adminUrl, databaseName);
  return {
    dialect,
    databaseUrl,
    dataDirectory,
    environment: { DATA_DIR: dataDirectory, DATABASE_URL: databaseUrl, MERINO_SECRET_KEY: TEST_SHARED_SECRET_KEY },
    drop: once(async () => {
      try {
        // FORCE terminates sessions the test left open (for example a pool that was never
        // closed); without it DROP DATABASE fails while anyone is connected.
        await withAdminClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseName)} WITH (FORCE)`));
      } finally {
        await rm(dataDirectory, { recursive: true, force: true });
      }
    }),
  };
}

/** Keeps user, password and query options of the admin URL and swaps only the database. */
function databaseUrlFor(adminUrl: string, databaseName: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
}

async function withAdminClient<Result>(adminUrl: string, work: (client: pg.Client) => Promise<Result>): Promise<Result> {
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

function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** afterEach hooks and explicit cleanup may both call drop(); the second call must be harmless. */
function once(action: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= action());
}
