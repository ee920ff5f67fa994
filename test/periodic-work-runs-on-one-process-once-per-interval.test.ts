/**
 * Proves the fleet's periodic work (scheduling/periodic-work.ts): three processes' stores over one
 * database attempt the same work at once and exactly one runs it; within one interval nobody runs
 * it again; after the interval one does; and on PostgreSQL a process that dies mid-run leaves the
 * lock to the others with its connection.
 */
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PeriodicWork } from '../src/scheduling/periodic-work.js';
import { readPeriodicRun } from '../src/store/periodic-runs-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';

const INTERVAL = 60_000;
/** Takes the fleet lock of WORK_NAME the way periodic-runs-repository.ts does, says so, and holds it until killed. */
const LOCK_HOLDER_SCRIPT = `
import pg from 'pg';
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
await client.query('select pg_advisory_lock(19794, hashtext($1))', [process.env.WORK_NAME]);
process.stdout.write('locked\\n');
setInterval(() => undefined, 1000);
`;
const NAME = 'test-sweep';
const LOCK_RELEASE_DEADLINE_MILLISECONDS = 15_000;

interface Gate {
  opened: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * The server lets a dead client's locks go when its backend notices the closed socket, a moment
 * after the client process has exited; on a busy machine that moment can come after the next query.
 */
async function untilNoBackendHoldsTheLock(store: Store, waitMilliseconds = LOCK_RELEASE_DEADLINE_MILLISECONDS): Promise<void> {
  const deadline = Date.now() + waitMilliseconds;
  for (;;) {
    const held = await sql<{ count: string }>`
      select count(*) as count from pg_locks
      where locktype = 'advisory' and granted and classid = 19794 and objid = hashtext(${NAME})::oid`.execute(store.db);
    if (Number(held.rows[0]?.count) === 0) return;
    if (Date.now() > deadline) throw new Error(`the killed process still held the lock after ${waitMilliseconds} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(TEST_DIALECTS)('periodic work on %s', (dialect) => {
  let database: TestDatabase;
  let stores: Store[];
  let running: number;
  let mostAtOnce: number;
  let runs: string[];

  function workFor(store: Store, runner: string, release: Promise<void> = Promise.resolve()): PeriodicWork<string> {
    return new PeriodicWork({
      db: store.db,
      dialect: store.dialect,
      name: NAME,
      intervalMilliseconds: INTERVAL,
      runner,
      work: async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        runs.push(runner);
        await release;
        running -= 1;
        return runner;
      },
      describe: () => undefined,
    });
  }

  beforeEach(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
    stores = [];
    for (let index = 0; index < 3; index += 1) {
      stores.push(await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 3 }));
    }
    running = 0;
    mostAtOnce = 0;
    runs = [];
  });

  afterEach(async () => {
    for (const store of stores) await store.close().catch(() => undefined);
    await database.drop();
  });

  it('runs on exactly one of three processes that try at the same moment', async () => {
    const release = gate();
    const now = Date.now();
    const attempts = stores.map((store, index) => workFor(store, `process-${index}`, release.opened).runIfDue(now));
    // Let every attempt reach the lock or the claim before the one that runs is let go.
    await new Promise((resolve) => setTimeout(resolve, 300));
    release.open();
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((outcome) => outcome.ran)).toHaveLength(1);
    expect(runs).toHaveLength(1);
    expect(mostAtOnce).toBe(1);
    const record = await readPeriodicRun(stores[0]!.db, NAME);
    expect(record).toMatchObject({ runner: runs[0], runCount: 1, startedAt: now });
    expect(record?.finishedAt).toBeGreaterThanOrEqual(now);
  });

  it('runs once per interval however many processes ask, and again once the interval has passed', async () => {
    const works = stores.map((store, index) => workFor(store, `process-${index}`));
    const start = Date.now();
    expect((await works[0]!.runIfDue(start)).ran).toBe(true);
    expect((await works[1]!.runIfDue(start + INTERVAL / 2)).ran).toBe(false);
    expect((await works[2]!.runIfDue(start + INTERVAL - 1)).ran).toBe(false);
    expect((await works[0]!.runIfDue(start + INTERVAL - 1)).ran).toBe(false);
    expect((await works[2]!.runIfDue(start + INTERVAL)).ran).toBe(true);
    expect(runs).toEqual(['process-0', 'process-2']);
    expect(await readPeriodicRun(stores[1]!.db, NAME)).toMatchObject({ runner: 'process-2', runCount: 2, startedAt: start + INTERVAL });
  });

  it.runIf(dialect === 'postgres')('leaves the lock to the others when the process running the work is killed', async () => {
    // A real process takes the lock as periodic work does, then dies by SIGKILL mid-run.
    const holder = spawn(process.execPath, ['--input-type=module', '-e', LOCK_HOLDER_SCRIPT], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.databaseUrl!, WORK_NAME: NAME },
      cwd: process.cwd(),
    });
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('locked')) resolve();
      });
      holder.on('exit', () => reject(new Error('the lock holder exited before it held the lock')));
    });
    const now = Date.now();
    expect((await workFor(stores[0]!, 'blocked').runIfDue(now)).ran).toBe(false);
    await expect(untilNoBackendHoldsTheLock(stores[1]!, 200)).rejects.toThrow(/still held/);
    holder.kill('SIGKILL');
    await exited;
    await untilNoBackendHoldsTheLock(stores[1]!);
    expect(await workFor(stores[1]!, 'survivor').runIfDue(now)).toEqual({ ran: true, result: 'survivor' });
  });
});
