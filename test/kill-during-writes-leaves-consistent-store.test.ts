/** Proves that a process killed with SIGKILL in the middle of multi-row writes leaves a consistent store. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { hashPassword } from '../src/auth/passwords.js';
import { ensureSystemOrganization } from '../src/store/organizations-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { insertUser } from '../src/store/users-repository.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';

const WORKER = fileURLToPath(new URL('./support/write-load-worker.ts', import.meta.url));
const ADMIN_EMAIL = 'crash-admin@merino.test';
const SHARE_SET_A = ['learner-1@merino.test', 'learner-2@merino.test'];
const SHARE_SET_B = ['learner-1@merino.test', 'learner-2@merino.test', 'learner-3@merino.test', 'learner-4@merino.test'];
/** How long the worker keeps writing after its first commit before it is killed. */
const WRITE_TIME_BEFORE_KILL_MILLISECONDS = 1_500;
const WORKER_START_TIMEOUT_MILLISECONDS = 30_000;

function storeOptions(database: TestDatabase) {
  return { databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 };
}

async function prepareStore(database: TestDatabase): Promise<void> {
  const store = await openStore(storeOptions(database));
  await bootstrapAdmin(store.db, ADMIN_EMAIL, 'crash-admin-password', TEST_PASSWORD_HASH_COST);
  const organization = await ensureSystemOrganization(store.db);
  const passwordHash = await hashPassword('learner-password', TEST_PASSWORD_HASH_COST);
  for (const email of SHARE_SET_B) {
    await insertUser(store.db, { organizationId: organization.id, email, name: '', passwordHash, role: 'learner', isSystemAdmin: false });
  }
  await store.close();
}

/** Runs the worker until it has committed for a while, then kills it with SIGKILL. */
async function runAndKillWorker(database: TestDatabase): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      ...database.environment,
      WORKER_ADMIN_EMAIL: ADMIN_EMAIL,
      WORKER_SHARE_SET_A: JSON.stringify(SHARE_SET_A),
      WORKER_SHARE_SET_B: JSON.stringify(SHARE_SET_B),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errorOutput = '';
  child.stderr.on('data', (chunk: Buffer) => (errorOutput += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker never became ready: ${errorOutput}`)), WORKER_START_TIMEOUT_MILLISECONDS);
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`worker exited early: ${errorOutput}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, WRITE_TIME_BEFORE_KILL_MILLISECONDS));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

describe.each(TEST_DIALECTS)('a SIGKILL during writes on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await prepareStore(database);
    await runAndKillWorker(database);
    store = await openStore(storeOptions(database));
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('reopens the store afterwards, with many writes committed', async () => {
    const { total } = await store.db
      .selectFrom('assistants')
      .select((eb) => eb.fn.countAll().as('total'))
      .executeTakeFirstOrThrow();
    expect(Number(total)).toBeGreaterThan(1);
  });

  it('keeps every created assistant together with its audit entry', async () => {
    const assistants = await store.db.selectFrom('assistants').select('id').orderBy('id').execute();
    const audits = await store.db
      .selectFrom('audit_log')
      .select('target_id')
      .where('action', '=', 'assistant.create')
      .orderBy('id')
      .execute();
    expect(audits.map((entry) => Number(entry.target_id))).toEqual(assistants.map((assistant) => assistant.id));
  });

  it('never leaves a share set half replaced', async () => {
    const counts = await store.db
      .selectFrom('assistants')
      .leftJoin('assistant_shares', 'assistant_shares.assistant_id', 'assistants.id')
      .select(['assistants.id as id', (eb) => eb.fn.count('assistant_shares.id').as('shares')])
      .groupBy('assistants.id')
      .execute();
    const allowedSizes = new Set([0, SHARE_SET_A.length, SHARE_SET_B.length]);
    for (const row of counts) expect(allowedSizes.has(Number(row.shares)), `assistant ${row.id} has ${row.shares} shares`).toBe(true);
    const shareAudits = await store.db
      .selectFrom('audit_log')
      .select(['target_id', 'details'])
      .where('action', '=', 'assistant.share')
      .execute();
    for (const audit of shareAudits) {
      const recorded = (JSON.parse(audit.details) as { user_ids: number[] }).user_ids.length;
      const actual = Number(counts.find((row) => row.id === Number(audit.target_id))?.shares);
      expect(actual).toBe(recorded);
    }
  });

  it('passes the database integrity check', async () => {
    if (dialect === 'sqlite') {
      const result = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(store.db);
      expect(result.rows[0]?.integrity_check).toBe('ok');
    } else {
      const result = await sql<{ broken: number }>`select count(*)::int as broken from pg_index where not indisvalid`.execute(store.db);
      expect(result.rows[0]?.broken).toBe(0);
    }
  });
});
