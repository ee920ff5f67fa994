/**
 * Proves the batch claim (INGESTION_CLAIM_BATCH_MAX, INGESTION_TEXT_CLAIM_BATCH_MAX, INGESTION_BYTES_IN_FLIGHT) on both dialects:
 * two processes' stores claiming batches from one queue at once never take the same job, and
 * between them take every job; a claim stops at the bytes it may take, though a runner holding
 * nothing takes the next job however large. And over real HTTP: a batch that holds a document too
 * large for its worker's heap fails that document's job only, while the rest of the batch completes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { claimIngestionJobs, type IngestionBatchClaim } from '../src/store/ingestion-job-claims-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { isSmallTextDocument } from '../src/ingestion/document-worker-pool.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const HOUR = 3_600_000;
const JOBS = 60;

describe.each(TEST_DIALECTS)('ingestion batches on %s', (dialect) => {
  let database: TestDatabase | undefined;
  const servers: TestServer[] = [];
  const stores: Store[] = [];

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const server of servers.splice(0)) await server.close();
    await database?.drop();
    database = undefined;
  });

  /** A server whose runner is stopped, with `count` queued documents of `sizeOf(index)` bytes each. */
  async function queued(count: number, sizeOf: (index: number) => number): Promise<{ server: TestServer; jobIds: number[] }> {
    database = await createTestDatabase(dialect);
    const server = await startTestServer(dialect, { database, environment: { INGESTION_IN_WEB: 'false' } });
    servers.push(server);
    const token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Batches' } });
    expect(created.status, created.text).toBe(201);
    const documents = Array.from({ length: count }, (_, index) => ({ text: `Basalt ${index} `.padEnd(sizeOf(index), 'x') }));
    const jobIds: number[] = [];
    for (let start = 0; start < documents.length; start += 20) {
      const posted = await request(server, 'POST', `/api/knowledge-bases/${created.body.id}/documents`, {
        token,
        body: { documents: documents.slice(start, start + 20) },
      });
      expect(posted.status, posted.text).toBe(202);
      jobIds.push(...(posted.body.documents as Array<{ job_id: number }>).map((document) => document.job_id));
    }
    return { server, jobIds };
  }

  function claimOf(index: number, changes: Partial<IngestionBatchClaim> = {}): IngestionBatchClaim {
    return {
      owner: `batch-racer-${index}:1:000000000000`,
      leaseExpiresAt: new Date(Date.now() + HOUR).toISOString(),
      attemptsMaximum: 3,
      jobsMaximum: 7,
      bytesMaximum: 1_000_000,
      firstJobAlways: true,
      ...changes,
    };
  }

  it('never gives one job to two claimers, and between them they take every job', async () => {
    const { jobIds } = await queued(JOBS, () => 100);
    // Two processes' stores (two connections). On PostgreSQL they claim truly at once; better-sqlite3
    // blocks its thread while it waits for a lock, so on SQLite the claims alternate, as SQLite's
    // single write lock orders them between real processes anyway.
    stores.push(
      ...(await Promise.all(
        [0, 1].map(() => openStore({ databaseUrl: database!.databaseUrl, dataDirectory: database!.dataDirectory, poolSize: 4 })),
      )),
    );
    const taken = new Map<number, string[]>();
    for (let round = 0; round < JOBS; round += 1) {
      const claim = (index: number) => claimIngestionJobs(stores[index]!.db, stores[index]!.dialect, claimOf(index));
      const claims =
        dialect === 'postgres' ? await Promise.all([claim(0), claim(1), claim(0), claim(1)]) : [await claim(0), await claim(1)];
      claims.forEach((result, index) => {
        for (const job of result.jobs) taken.set(job.id, [...(taken.get(job.id) ?? []), claimOf(index % 2).owner]);
        expect(result.jobs.length).toBeLessThanOrEqual(7);
      });
      if (claims.every((result) => result.jobs.length === 0)) break;
    }
    expect([...taken.keys()].sort((left, right) => left - right)).toEqual(jobIds);
    expect([...taken.values()].filter((owners) => owners.length > 1)).toEqual([]);
    const rows = await stores[0]!.db.selectFrom('ingestion_jobs').select(['id', 'lease_owner', 'status', 'attempts']).execute();
    for (const row of rows) expect(row).toMatchObject({ status: 'processing', attempts: 1, lease_owner: taken.get(row.id)![0] });
  });

  it('takes no more bytes than it may, except one job alone for a runner holding nothing', async () => {
    // Documents of 1,000 bytes, the third of 50,000.
    const { server, jobIds } = await queued(6, (index) => (index === 2 ? 50_000 : 1_000));
    const { db, dialect: storeDialect } = server.store;
    const first = await claimIngestionJobs(db, storeDialect, claimOf(0, { bytesMaximum: 10_000 }));
    // The two small ones fit; the large one ends the batch.
    expect(first.jobs.map((job) => job.id)).toEqual(jobIds.slice(0, 2));
    expect(first.bytes).toBe(2_000);
    const held = first.jobs.map((job) => job.id);
    const nothingFits = await claimIngestionJobs(
      db,
      storeDialect,
      claimOf(0, { heldJobIds: held, bytesMaximum: 8_000, firstJobAlways: false }),
    );
    expect(nothingFits.jobs).toEqual([]);
    const alone = await claimIngestionJobs(db, storeDialect, claimOf(1, { bytesMaximum: 10_000 }));
    expect(alone.jobs.map((job) => job.id)).toEqual([jobIds[2]]);
    expect(alone.bytes).toBe(50_000);
  });

  it('takes more small texts in one claim than other jobs, and stops at the first job of another kind', async () => {
    // Plain texts of 100 bytes, but the eleventh is 70,000 bytes: too large to be a small text.
    const { server, jobIds } = await queued(15, (index) => (index === 10 ? 70_000 : 100));
    const { db, dialect: storeDialect } = server.store;
    const smallTexts = { jobsMaximum: 20, isSmall: isSmallTextDocument };
    const claim = (held: number[]) =>
      claimIngestionJobs(db, storeDialect, claimOf(0, { jobsMaximum: 3, smallTexts, heldJobIds: held, firstJobAlways: false }));
    const texts = await claim([]);
    // Oldest first: ten small texts, more than `jobsMaximum`, up to the large one.
    expect(texts.jobs.map((job) => job.id)).toEqual(jobIds.slice(0, 10));
    const mixed = await claim(jobIds.slice(0, 10));
    // The oldest is not a small text: an ordinary claim of at most three jobs of any kind.
    expect(mixed.jobs.map((job) => job.id)).toEqual(jobIds.slice(10, 13));
    const rest = await claim(jobIds.slice(0, 13));
    expect(rest.jobs.map((job) => job.id)).toEqual(jobIds.slice(13));
  });

  it('takes no small texts while fewer than its minimum wait, then a whole batch once they do', async () => {
    // What a runner claims while its last batch of small texts writes: a whole batch or nothing.
    const { server, jobIds } = await queued(12, () => 100);
    const { db, dialect: storeDialect } = server.store;
    const claim = (held: number[], jobsMinimum: number) =>
      claimIngestionJobs(
        db,
        storeDialect,
        claimOf(0, { smallTexts: { jobsMaximum: 8, jobsMinimum, isSmall: isSmallTextDocument }, heldJobIds: held, firstJobAlways: false }),
      );
    const whole = await claim([], 8);
    expect(whole.jobs.map((job) => job.id)).toEqual(jobIds.slice(0, 8));
    expect(whole.smallTexts).toBe(true);
    // Four wait: fewer than the minimum, so none is taken, and the claim says some wait.
    const tooFew = await claim(jobIds.slice(0, 8), 8);
    expect(tooFew.jobs).toEqual([]);
    expect(tooFew.waiting).toBe(true);
    const untaken = await db.selectFrom('ingestion_jobs').select('id').where('status', '=', 'pending').orderBy('id').execute();
    expect(untaken.map((row) => row.id)).toEqual(jobIds.slice(8));
    // Without a minimum (the runner's last batch has written), the four are taken.
    const rest = await claim(jobIds.slice(0, 8), 0);
    expect(rest.jobs.map((job) => job.id)).toEqual(jobIds.slice(8));
  });

  it('takes the oldest claimable jobs in id order, cut-short ones among pending ones, and never its own or a live lease', async () => {
    const { server, jobIds } = await queued(12, () => 100);
    const { db, dialect: storeDialect } = server.store;
    const [live, cutShort, exhausted, held] = [jobIds[1]!, jobIds[3]!, jobIds[5]!, jobIds[0]!];
    const past = new Date(Date.now() - HOUR).toISOString();
    const setJob = (id: number, values: { lease_expires_at: string | null; attempts_since_queued: number }) =>
      db
        .updateTable('ingestion_jobs')
        .set({ status: 'processing', lease_owner: 'elsewhere:1:000000000000', ...values })
        .where('id', '=', id)
        .execute();
    await setJob(live, { lease_expires_at: new Date(Date.now() + HOUR).toISOString(), attempts_since_queued: 1 });
    await setJob(cutShort, { lease_expires_at: past, attempts_since_queued: 1 });
    await setJob(exhausted, { lease_expires_at: past, attempts_since_queued: 3 });
    await setJob(held, { lease_expires_at: past, attempts_since_queued: 1 });

    const claimed = await claimIngestionJobs(db, storeDialect, claimOf(0, { jobsMaximum: 5, heldJobIds: [held] }));

    // jobIds[2], [4], [6], [7] are pending; jobIds[3] was cut short with attempts left and comes among them.
    expect(claimed.jobs.map((job) => job.id)).toEqual([jobIds[2], cutShort, jobIds[4], jobIds[6], jobIds[7]]);
    expect(claimed.failedJobs.map((job) => job.id)).toEqual([exhausted]);
    const next = await claimIngestionJobs(db, storeDialect, claimOf(1, { jobsMaximum: 10 }));
    // The held job's lease has run out: another runner takes it over; the live lease stays where it is.
    expect(next.jobs.map((job) => job.id)).toEqual([held, ...jobIds.slice(8)]);
  });

  it('fails only the document of a batch that is too large for its heap; the rest of the batch completes', async () => {
    database = await createTestDatabase(dialect);
    const server = await startTestServer(dialect, {
      database,
      environment: { INGESTION_IN_WEB: 'false', INGESTION_POLL_MS: '20', INGESTION_WORKER_HEAP_MB: '16' },
    });
    servers.push(server);
    const token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'One bad apple' } });
    const knowledgeBase = created.body.id as number;
    const jobIds: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      // About 8 MB of text for the fourth: normalizing, splitting and chunking it holds several copies at once.
      const content = index === 3 ? 'granite basalt obsidian pumice\n'.repeat(280_000) : `# Note ${index}\n\nLava cools into basalt.`;
      const uploaded = await uploadDocument(server, token, knowledgeBase, `note-${index}.md`, content);
      expect(uploaded.status, uploaded.text).toBe(202);
      jobIds.push(uploaded.body.job_id as number);
    }
    // Every job waits before the runner starts, so its first claim takes them all as one batch.
    server.services.ingestionRunner.start();
    const jobs = [];
    for (const jobId of jobIds) jobs.push(await waitForJob(server, token, knowledgeBase, jobId, 90_000));
    expect(jobs.map((job) => job.status)).toEqual(['completed', 'completed', 'completed', 'failed', 'completed', 'completed']);
    expect(jobs[3].error).toMatch(/more than 16 MB of memory/);
    for (const job of jobs) expect(job.attempts).toBe(1);
    const documents = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token });
    expect(documents.body.items.map((document: { status: string }) => document.status).sort()).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
      'completed',
      'failed',
    ]);
  });
});
