/**
 * Proves a server restarted after `kill -9` takes its dead predecessor's ingestion job back at
 * once, on both dialects, instead of waiting for the lease: the leases here run for an hour
 * (INGESTION_LEASE_MS), so only the reclaim can explain the resume. The job moves from the killed
 * process's runner to the new one (attempt 2) and completes. Jobs held by a live process on this
 * machine, or by a process on another host, keep their leases: they may still be working.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGatedEmbeddingServer, type GatedEmbeddingServer } from './fakes/gated-embedding-server.js';
import { hourLeaseEnvironment, insertHeldIngestionJob, uploadHeldDocument } from './support/held-ingestion-jobs.js';
import { waitForJob, uploadDocument } from './support/knowledge-uploads.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const PROVIDER_KEY = 'sk-reclaim-test-key-0123456789';
const HOUR = 3_600_000;

describe.each(TEST_DIALECTS)('a restarted server on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let embeddings: GatedEmbeddingServer | undefined;
  let killed: ServerProcess | undefined;
  let restarted: TestServer | undefined;

  afterEach(async () => {
    embeddings?.open();
    await killed?.kill();
    await restarted?.close();
    await embeddings?.close();
    await database?.drop();
    database = embeddings = killed = restarted = undefined;
  });

  it('reclaims the job its killed predecessor held at once, and leaves the jobs of live processes and other hosts alone', async () => {
    database = await createTestDatabase(dialect);
    embeddings = await startGatedEmbeddingServer();
    const environment = hourLeaseEnvironment(embeddings.baseUrl, PROVIDER_KEY);

    killed = await startServerProcess(database, environment);
    const token = await loginAsAdmin(killed);
    const { knowledgeBaseId: knowledgeBase, jobId } = await uploadHeldDocument(killed, token, {
      knowledgeBaseName: 'Minerals',
      fileName: 'quartz.md',
      content: '# Quartz\n\nQuartz is a hard mineral made of silicon and oxygen.',
    });
    // The killed process's runner is now waiting for its embeddings: the job is in its hands.
    await embeddings.waitForRequests(1);
    const held = await request(killed, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}`, { token });
    expect(held.body).toMatchObject({ status: 'processing', attempts: 1 });
    await killed.kill();
    const deadPid = killed.child.pid;
    killed = undefined;

    restarted = await startTestServer(dialect, { database, environment });
    const db = restarted.store.db;
    const newOwner = restarted.services.ingestionRunner.owner;
    // The new runner has the job, under its own name, while the killed one's lease had an hour to run.
    const deadline = Date.now() + 30_000;
    let row = await db.selectFrom('ingestion_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    while (row.lease_owner !== newOwner && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      row = await db.selectFrom('ingestion_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    }
    expect(row).toMatchObject({ status: 'processing', lease_owner: newOwner, attempts: 2 });
    expect(restarted.logLines.some((line) => line.includes('ingestion jobs of dead processes on this machine released'))).toBe(true);
    await embeddings.waitForRequests(2);
    embeddings.open();
    const adminToken = await loginAsAdmin(restarted);
    expect(await waitForJob(restarted, adminToken, knowledgeBase, jobId)).toMatchObject({ status: 'completed', attempts: 2, error: null });
    expect(deadPid).toBeDefined();
  });

  it('does not reclaim jobs whose holder is alive on this machine or lives on another host', async () => {
    database = await createTestDatabase(dialect);
    restarted = await startTestServer(dialect, { database, environment: { INGESTION_POLL_MS: '20', INGESTION_LEASE_MS: String(HOUR) } });
    await restarted.services.ingestionRunner.stop();
    const token = await loginAsAdmin(restarted);
    const knowledgeBase = (await request(restarted, 'POST', '/api/knowledge-bases', { token, body: { name: 'Held elsewhere' } })).body
      .id as number;
    const db = restarted.store.db;
    const runnerName = restarted.services.ingestionRunner.owner;
    const machine = runnerName.slice(0, runnerName.lastIndexOf(':', runnerName.lastIndexOf(':') - 1));
    const holders = {
      // This very process (alive), under another runner's name: two test servers share a process.
      liveHere: `${machine}:${process.pid}:feedfacecafe`,
      // Another live process of this machine: the one that started this test run.
      liveParent: `${machine}:${process.ppid}:feedfacecafe`,
      otherHost: 'another-host.example:4242:abcdef012345',
      // A pid that cannot exist, but named by another machine: its liveness cannot be checked from here.
      otherMachineDeadPid: 'another-host.example:999999999:abcdef012345',
    };
    const leaseEnd = new Date(Date.now() + HOUR).toISOString();
    const jobIds: Record<string, number> = {};
    for (const [name, owner] of Object.entries(holders)) {
      const held = await insertHeldIngestionJob(db, {
        knowledgeBaseId: knowledgeBase,
        fileName: `${name}.txt`,
        attempts: 1,
        leaseOwner: owner,
        leaseExpiresAt: leaseEnd,
      });
      jobIds[name] = held.jobId;
    }
    // A server starting now runs its start-up reclaim before its first claim; a document uploaded
    // to it completing shows that both have happened.
    const second = await startTestServer(dialect, { database, environment: { INGESTION_POLL_MS: '20', INGESTION_LEASE_MS: String(HOUR) } });
    try {
      const uploaded = await uploadDocument(
        second,
        token,
        knowledgeBase,
        'fresh.txt',
        'Feldspar is the most common mineral group in the crust.',
      );
      expect((await waitForJob(second, token, knowledgeBase, uploaded.body.job_id)).status).toBe('completed');
      const rows = await db
        .selectFrom('ingestion_jobs')
        .select(['id', 'status', 'lease_owner', 'lease_expires_at', 'attempts'])
        .where('knowledge_base_id', '=', knowledgeBase)
        .where('id', '!=', uploaded.body.job_id)
        .orderBy('id')
        .execute();
      expect(rows).toEqual(
        Object.entries(holders).map(([name, owner]) => ({
          id: jobIds[name],
          status: 'processing',
          lease_owner: owner,
          lease_expires_at: leaseEnd,
          attempts: 1,
        })),
      );
      expect(second.logLines.some((line) => line.includes('ingestion jobs of dead processes on this machine released'))).toBe(false);
    } finally {
      await second.close();
    }
  });
});
