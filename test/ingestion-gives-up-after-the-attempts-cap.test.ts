/**
 * Proves the attempts cap on both dialects: a job whose runner keeps being cut short (here each
 * server holding it loses it, its lease ended in the store as a dead process's would) is started
 * by three servers in turn, and the fourth fails it with a sentence the creator can act on instead
 * of starting it again, marking the document failed; a retry asked for by the creator counts
 * afresh and completes. The same with real processes: three server processes killed with SIGKILL
 * mid-job in turn (each restart takes the job back at once), and the next server fails it. Two
 * processes meeting an exhausted job at once fail it exactly once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { claimIngestionJobs } from '../src/store/ingestion-job-claims-repository.js';
import { openStore } from '../src/store/store.js';
import { startGatedEmbeddingServer, type GatedEmbeddingServer } from './fakes/gated-embedding-server.js';
import { hourLeaseEnvironment, insertHeldIngestionJob, uploadHeldDocument } from './support/held-ingestion-jobs.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const PROVIDER_KEY = 'sk-attempts-cap-key-0123456789';
const HOUR = 3_600_000;
const STOPPED_THREE_TIMES =
  'The server stopped 3 times while processing this document, so it is not started again automatically: the document may be too large or too complex for this server. Check the file (or split it into smaller ones), then retry the job or upload it again.';

describe.each(TEST_DIALECTS)('the ingestion attempts cap on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let embeddings: GatedEmbeddingServer | undefined;
  const servers: TestServer[] = [];
  let running: ServerProcess | undefined;

  afterEach(async () => {
    embeddings?.open();
    await running?.kill();
    running = undefined;
    for (const server of servers.splice(0)) await server.close();
    await embeddings?.close();
    await database?.drop();
    database = embeddings = undefined;
  });

  it('fails a job cut short three times with a clear sentence, never starting it a fourth time; a retry counts afresh', async () => {
    database = await createTestDatabase(dialect);
    embeddings = await startGatedEmbeddingServer();
    // Hour-long leases: only the cut-short runs below end a lease, never the clock.
    const environment = hourLeaseEnvironment(embeddings.baseUrl, PROVIDER_KEY);
    const start = async () => {
      const server = await startTestServer(dialect, { database, environment });
      servers.push(server);
      return server;
    };
    const first = await start();
    const token = await loginAsAdmin(first);
    const {
      knowledgeBaseId: knowledgeBase,
      documentId,
      jobId,
    } = await uploadHeldDocument(first, token, {
      knowledgeBaseName: 'Crashes',
      fileName: 'poison.md',
      content: '# Poison\n\nThis document stands for one whose processing kills the server.',
    });
    const db = first.store.db;
    const jobRow = () => db.selectFrom('ingestion_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

    // Three runs, each held by a different server and cut short: its lease ends as a dead process's would.
    let holder = first;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      if (attempt > 1) holder = await start();
      await embeddings.waitForRequests(attempt);
      expect(await jobRow()).toMatchObject({
        status: 'processing',
        attempts: attempt,
        attempts_since_queued: attempt,
        lease_owner: holder.services.ingestionRunner.owner,
      });
      await db
        .updateTable('ingestion_jobs')
        .set({ lease_expires_at: new Date(Date.now() - 1_000).toISOString() })
        .where('id', '=', jobId)
        .execute();
    }

    const fourth = await start();
    const failed = await waitForJob(fourth, token, knowledgeBase, jobId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, error: STOPPED_THREE_TIMES });
    expect(embeddings.requests).toHaveLength(3);
    const document = await request(fourth, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, {
      token,
    });
    expect(document.body).toMatchObject({ status: 'failed', error: STOPPED_THREE_TIMES });
    expect(fourth.logLines.some((line) => line.includes('the server stopped during every attempt'))).toBe(true);

    // The creator retries on purpose: the count starts afresh, and this time the run goes through.
    embeddings.open();
    expect((await request(fourth, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/retry`, { token })).status).toBe(200);
    expect(await waitForJob(fourth, token, knowledgeBase, jobId)).toMatchObject({ status: 'completed', attempts: 4, error: null });
    expect((await jobRow()).attempts_since_queued).toBe(1);
  });

  it('ends a real crash loop: after three server processes are killed mid-job, the next server fails the job', async () => {
    database = await createTestDatabase(dialect);
    embeddings = await startGatedEmbeddingServer();
    const environment = hourLeaseEnvironment(embeddings.baseUrl, PROVIDER_KEY);
    let knowledgeBase = 0;
    let jobId = 0;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      running = await startServerProcess(database, environment);
      const token = await loginAsAdmin(running);
      if (attempt === 1) {
        ({ knowledgeBaseId: knowledgeBase, jobId } = await uploadHeldDocument(running, token, {
          knowledgeBaseName: 'Crash loop',
          fileName: 'poison.md',
          content: '# Poison\n\nEvery server that processes this document dies.',
        }));
      }
      // This process holds the job (waiting for its embeddings) when it dies.
      await embeddings.waitForRequests(attempt);
      expect((await request(running, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}`, { token })).body).toMatchObject({
        status: 'processing',
        attempts: attempt,
      });
      await running.kill();
      running = undefined;
    }
    const next = await startTestServer(dialect, { database, environment });
    servers.push(next);
    const token = await loginAsAdmin(next);
    expect(await waitForJob(next, token, knowledgeBase, jobId)).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: STOPPED_THREE_TIMES,
    });
    expect(embeddings.requests).toHaveLength(3);
    // Four real server processes start one after another; on a loaded machine that alone can take half a minute.
  }, 120_000);

  it('fails an exhausted job exactly once when two processes claim at the same moment, and claims it for neither', async () => {
    database = await createTestDatabase(dialect);
    const server = await startTestServer(dialect, { database, environment: { INGESTION_POLL_MS: '20' } });
    servers.push(server);
    await server.services.ingestionRunner.stop();
    const token = await loginAsAdmin(server);
    const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Race' } })).body.id as number;
    const db = server.store.db;
    const stale = new Date(Date.now() - HOUR).toISOString();
    const { documentId, jobId } = await insertHeldIngestionJob(db, {
      knowledgeBaseId: knowledgeBase,
      fileName: 'crash.txt',
      attempts: 3,
      attemptsSinceQueued: 3,
      leaseOwner: 'gone-host:4242:abcdef012345',
      leaseExpiresAt: stale,
    });

    // Two processes' stores (two connections, two pools) claiming. On PostgreSQL they claim truly at
    // once. better-sqlite3 waits for a lock by blocking its thread, so two SQLite connections in ONE
    // process would wait on each other until the busy timeout; there the claims go one after the
    // other, as SQLite's single write lock orders them between real processes anyway.
    const stores = await Promise.all(
      [0, 1].map(() => openStore({ databaseUrl: database!.databaseUrl, dataDirectory: database!.dataDirectory, poolSize: 2 })),
    );
    try {
      const claim = (index: number) =>
        claimIngestionJobs(stores[index]!.db, stores[index]!.dialect, {
          owner: `racer-${index}:1:000000000000`,
          leaseExpiresAt: new Date(Date.now() + HOUR).toISOString(),
          attemptsMaximum: 3,
          jobsMaximum: 1,
          bytesMaximum: 0,
          firstJobAlways: true,
        });
      const claims = dialect === 'postgres' ? await Promise.all([claim(0), claim(1)]) : [await claim(0), await claim(1)];
      expect(claims.map((claim) => claim.jobs)).toEqual([[], []]);
      expect(claims.flatMap((claim) => claim.failedJobs)).toEqual([{ id: jobId, documentId, attempts: 3 }]);
    } finally {
      for (const store of stores) await store.close();
    }
    const row = await db.selectFrom('ingestion_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', attempts: 3, lease_owner: null, error: STOPPED_THREE_TIMES });
    const failedDocument = await db.selectFrom('kb_documents').selectAll().where('id', '=', documentId).executeTakeFirstOrThrow();
    expect(failedDocument).toMatchObject({ status: 'failed', error: STOPPED_THREE_TIMES });
  });
});
