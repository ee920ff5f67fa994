// Gives each test its own store: a fresh PostgreSQL database on the run's cluster, or a fresh
// folder for the SQLite file, so tests can run in parallel without seeing each other's rows. It is
// empty, or a copy of the run's migrated template (migrated-templates.ts) when asked for.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { copySqliteTemplate, databaseUrlFor, withAdminClient } from './migrated-templates.js';

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
  /**
   * What points a Merino process at this database: DATA_DIR, and for postgres DATABASE_URL with the
   * shared MERINO_SECRET_KEY it requires; and the tests' PASSWORD_HASH_COST.
   */
  environment: Record<string, string>;
  /** Drops the postgres database (terminating its connections first) and removes the folder. */
  drop(): Promise<void>;
}

/** The key every test process on one PostgreSQL database shares, as production processes must. */
export const TEST_SHARED_SECRET_KEY = 'the secret key every test process shares';

/**
 * scrypt's cost in every test process (PASSWORD_HASH_COST, N = 2^10): a login or a new account
 * then costs about 1 ms instead of 0.15 s, which most of the suite's accounts would otherwise
 * spend. The default cost is proven in src/auth/passwords.test.ts and by the suites that set it.
 */
export const TEST_PASSWORD_HASH_COST = 10;

const DATABASE_NAME_PREFIX = 'merino_test_';

export interface TestDatabaseOptions {
  /** A copy of the migrated template instead of an empty store, for tests not about migrating. */
  migrated?: boolean;
}

export async function createTestDatabase(dialect: Dialect, options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const dataDirectory = await mkdtemp(path.join(os.tmpdir(), `merino-test-${dialect}-`));

  if (dialect === 'sqlite') {
    if (options.migrated === true) await copySqliteTemplate(inject('sqliteTemplateFile'), dataDirectory);
    return {
      dialect,
      databaseUrl: undefined,
      dataDirectory,
      environment: { DATA_DIR: dataDirectory, PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST) },
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
    // FILE_COPY: the cluster runs without fsync, so its checkpoint is cheap, and the copy is faster than WAL_LOG's.
    const copy = options.migrated === true ? ` TEMPLATE ${quoteIdentifier(inject('postgresTemplateDatabase'))} STRATEGY FILE_COPY` : '';
    await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}${copy}`));
  } catch (error) {
    await rm(dataDirectory, { recursive: true, force: true });
    throw error;
  }

  const databaseUrl = databaseUrlFor(adminUrl, databaseName);
  return {
    dialect,
    databaseUrl,
    dataDirectory,
    environment: {
      DATA_DIR: dataDirectory,
      DATABASE_URL: databaseUrl,
      MERINO_SECRET_KEY: TEST_SHARED_SECRET_KEY,
      PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
    },
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

function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** afterEach hooks and explicit cleanup may both call drop(); the second call must be harmless. */
function once(action: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= action());
}
