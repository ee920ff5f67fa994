/**
 * What one ingestion claim costs as the backlog grows: a runner asks for the oldest claimable jobs
 * once a poll (and after every batch), so a claim that read the whole backlog would make a large
 * upload slower the more of it waits, and stall the event loop of the process claiming on SQLite.
 *
 * For each dialect (MERINO_TEST_DIALECTS) and backlog (CLAIM_BACKLOGS, pending jobs), the store is
 * filled straight in SQL, then CLAIM_ROUNDS claims of CLAIM_JOBS jobs each are timed, every claimed
 * job then marked completed as a runner would. Printed: milliseconds a claim, p50 / p99 / most.
 * Never asserts on a time.
 *
 *   npm run bench -- bench/ingestion-claim-cost.bench.ts
 */
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { claimIngestionJobs } from '../src/store/ingestion-job-claims-repository.js';
import type { Database } from '../src/store/schema.js';
import { openStore } from '../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS } from '../test/support/test-databases.js';
import { loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { ascending, percentile, printTable, wholeNumberSetting } from './support/measure.js';

const BACKLOGS = (process.env.CLAIM_BACKLOGS ?? '1000,10000,100000').split(',').map(Number);
const ROUNDS = wholeNumberSetting('CLAIM_ROUNDS', 50, 1);
const JOBS = wholeNumberSetting('CLAIM_JOBS', 40, 1);

describe('an ingestion claim against a growing backlog', () => {
  it('prints the milliseconds a claim takes', async () => {
    const rows: string[][] = [];
    for (const dialect of TEST_DIALECTS) {
      for (const backlog of BACKLOGS) rows.push([dialect, String(backlog), ...(await claimTimes(dialect, backlog))]);
    }
    printTable(
      `Ingestion claims of ${JOBS} jobs`,
      [
        { label: 'store', width: 10 },
        { label: 'pending jobs', width: 14 },
        { label: 'claim p50 ms', width: 14 },
        { label: 'p99 ms', width: 8 },
        { label: 'max ms', width: 8 },
      ],
      rows,
    );
  });
});

async function claimTimes(dialect: (typeof TEST_DIALECTS)[number], backlog: number): Promise<string[]> {
  const database = await createTestDatabase(dialect, { migrated: true });
  const server = await startTestServer(dialect, { database, environment: { INGESTION_IN_WEB: 'false' } });
  const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
  try {
    const token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Backlog' } });
    const posted = await request(server, 'POST', `/api/knowledge-bases/${created.body.id}/documents`, {
      token,
      body: { documents: [{ text: 'Basalt columns form as lava cools.' }] },
    });
    expect(posted.status, posted.text).toBe(202);
    await queueCopies(store.db, backlog - 1);
    if (dialect === 'postgres') await sql`analyze ingestion_jobs`.execute(store.db);
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = performance.now();
      const claimed = await claimIngestionJobs(store.db, store.dialect, {
        owner: 'bench:1:000000000000',
        leaseExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        attemptsMaximum: 3,
        jobsMaximum: JOBS,
        bytesMaximum: 100_000_000,
        firstJobAlways: true,
      });
      times.push(performance.now() - started);
      expect(claimed.jobs).toHaveLength(JOBS);
      await store.db
        .updateTable('ingestion_jobs')
        .set({ status: 'completed', lease_owner: null, lease_expires_at: null })
        .where(
          'id',
          'in',
          claimed.jobs.map((job) => job.id),
        )
        .execute();
      // New uploads keep the backlog as it was, behind a growing history of completed jobs.
      await queueCopies(store.db, JOBS);
    }
    const sorted = ascending(times);
    return [percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.at(-1)!].map((value) => value.toFixed(2));
  } finally {
    await store.close();
    await server.close();
    await database.drop();
  }
}

/** Queues `count` more jobs for the first job's document, as uploads would. */
async function queueCopies(db: Kysely<Database>, count: number): Promise<void> {
  await sql`
    with recursive copies(n) as (select 1 union all select n + 1 from copies where n < ${count})
    insert into ingestion_jobs (knowledge_base_id, document_id, status, progress_current, progress_total, attempts, created_at, updated_at)
    select j.knowledge_base_id, j.document_id, 'pending', 0, 0, 0, j.created_at, j.updated_at
    from (select * from ingestion_jobs order by id limit 1) j, copies`.execute(db);
}
