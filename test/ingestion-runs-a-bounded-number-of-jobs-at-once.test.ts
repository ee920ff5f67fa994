/**
 * Proves INGESTION_JOBS_IN_FLIGHT on both dialects, over real HTTP: a runner works on several jobs
 * at once, and never on more than the setting allows, except that a runner with room, or holding
 * fewer jobs than INGESTION_TEXT_CLAIM_BATCH_MAX, may claim a whole batch of small texts, which
 * that setting bounds. Each knowledge base has an embedding model
 * served by a gated fake (test/fakes/gated-embedding-server.ts), which holds every job mid-way
 * until it opens, so the jobs in hand can be counted. With two servers on one database, each
 * takes its own share under its own leases and no job is claimed twice.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGatedEmbeddingServer, type GatedEmbeddingServer } from './fakes/gated-embedding-server.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const PROVIDER_KEY = 'sk-jobs-in-flight-key-0123456789';
const POLL_MILLISECONDS = 20;
/** Polls of an idle runner to let pass while the gate is shut: a runner past its bound would have claimed meanwhile. */
const POLLS_TO_WAIT = 10;
/** Past the 64 KiB of a small text: such a document is claimed within INGESTION_JOBS_IN_FLIGHT. */
const LARGE_TEXT = `# Basalt\n\n${'Lava cools into basalt on the sea floor. '.repeat(1_800)}`;

async function processingJobs(server: TestServer): Promise<Array<{ id: number; lease_owner: string | null }>> {
  return server.store.db.selectFrom('ingestion_jobs').select(['id', 'lease_owner']).where('status', '=', 'processing').execute();
}

describe.each(TEST_DIALECTS)('ingestion jobs in flight on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let embeddings: GatedEmbeddingServer | undefined;
  const servers: TestServer[] = [];

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    embeddings = await startGatedEmbeddingServer();
  });

  afterEach(async () => {
    embeddings?.open();
    for (const server of servers.splice(0)) await server.close();
    await embeddings?.close();
    await database?.drop();
    database = embeddings = undefined;
  });

  async function start(jobsInFlight: number, textClaim = 256): Promise<TestServer> {
    const server = await startTestServer(dialect, {
      database,
      environment: {
        INGESTION_POLL_MS: String(POLL_MILLISECONDS),
        INGESTION_JOBS_IN_FLIGHT: String(jobsInFlight),
        INGESTION_TEXT_CLAIM_BATCH_MAX: String(textClaim),
        // One embeddings request a document, however many chunks it has, so requests count jobs.
        EMBEDDING_BATCH_SIZE: '2048',
        OPENAI_API_KEY: PROVIDER_KEY,
        OPENAI_BASE_URL: embeddings!.baseUrl,
      },
    });
    servers.push(server);
    return server;
  }

  async function createKnowledgeBase(server: TestServer, token: string): Promise<number> {
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token,
      body: { name: 'In flight', embeddings: { connector: 'openai', model: 'text-embedding-3-small' } },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.id as number;
  }

  /** Uploads `count` Markdown files past the size of a small text, one request each. */
  async function queueLargeTexts(server: TestServer, token: string, count: number): Promise<{ knowledgeBase: number; jobIds: number[] }> {
    const knowledgeBase = await createKnowledgeBase(server, token);
    const jobIds: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const uploaded = await uploadDocument(server, token, knowledgeBase, `note-${index}.md`, LARGE_TEXT);
      expect(uploaded.status, uploaded.text).toBe(202);
      jobIds.push(uploaded.body.job_id as number);
    }
    return { knowledgeBase, jobIds };
  }

  /** Queues `count` small JSON texts in one request, so that the runner's first claim finds them all waiting. */
  async function queueSmallTexts(server: TestServer, token: string, count: number): Promise<{ knowledgeBase: number; jobIds: number[] }> {
    const knowledgeBase = await createKnowledgeBase(server, token);
    const documents = Array.from({ length: count }, (_, index) => ({ text: `Note ${index}: lava cools into basalt.` }));
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, { token, body: { documents } });
    expect(queued.status, queued.text).toBe(202);
    return { knowledgeBase, jobIds: queued.body.documents.map((document: { job_id: number }) => document.job_id) };
  }

  const idlePolls = () => new Promise((resolve) => setTimeout(resolve, POLL_MILLISECONDS * POLLS_TO_WAIT));

  /** Waits for `count` jobs to reach the shut gate, then for the runners to claim more if they would; none did. */
  async function expectHeldAtGate(count: number): Promise<void> {
    await embeddings!.waitForRequests(count);
    await idlePolls();
    expect(embeddings!.requests).toHaveLength(count);
  }

  /** The runner of `server` holds `count` jobs at the shut gate, and claims no more; the store agrees. */
  async function expectRunnerHolds(server: TestServer, count: number): Promise<void> {
    await expectHeldAtGate(count);
    expect(await processingJobs(server)).toHaveLength(count);
    expect(server.services.ingestionRunner.jobsInFlight).toBe(count);
  }

  /** Opens the gate: every job of every queue completes at its first attempt, each with one embeddings request. */
  async function expectAllCompleted(
    server: TestServer,
    token: string,
    ...queues: Array<{ knowledgeBase: number; jobIds: number[] }>
  ): Promise<void> {
    embeddings!.open();
    for (const queued of queues)
      for (const jobId of queued.jobIds)
        expect(await waitForJob(server, token, queued.knowledgeBase, jobId)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(embeddings!.requests).toHaveLength(queues.reduce((total, queued) => total + queued.jobIds.length, 0));
  }

  it('works on up to INGESTION_JOBS_IN_FLIGHT jobs at once and no more, then completes them all', async () => {
    const server = await start(3);
    const token = await loginAsAdmin(server);
    const queued = await queueLargeTexts(server, token, 5);

    await expectRunnerHolds(server, 3);

    await expectAllCompleted(server, token, queued);
  });

  it('shares the queue between two servers, each within its own bound, claiming no job twice', async () => {
    const first = await start(2);
    const second = await start(2);
    const token = await loginAsAdmin(first);
    const queued = await queueLargeTexts(first, token, 6);

    await expectHeldAtGate(4);
    const held = await processingJobs(first);
    const owners = [first, second].map((server) => server.services.ingestionRunner.owner);
    expect(held.filter((job) => job.lease_owner === owners[0])).toHaveLength(2);
    expect(held.filter((job) => job.lease_owner === owners[1])).toHaveLength(2);

    await expectAllCompleted(first, token, queued);
  });

  it('claims a whole batch of small texts past INGESTION_JOBS_IN_FLIGHT, and no more than INGESTION_TEXT_CLAIM_BATCH_MAX', async () => {
    const server = await start(3, 4);
    const token = await loginAsAdmin(server);
    const queued = await queueSmallTexts(server, token, 6);

    // One claim of four small texts, made with room for three; holding four, the runner claims no more.
    await expectRunnerHolds(server, 4);

    await expectAllCompleted(server, token, queued);
  });

  it('claims a second batch of small texts while it holds fewer than INGESTION_TEXT_CLAIM_BATCH_MAX, and no third', async () => {
    const server = await start(2, 4);
    const token = await loginAsAdmin(server);
    const first = await queueSmallTexts(server, token, 3);
    await expectHeldAtGate(3);

    // Holding three, fewer than a text batch: one more batch of four, while the first is still in hand; then none.
    const second = await queueSmallTexts(server, token, 6);
    await expectRunnerHolds(server, 7);

    await expectAllCompleted(server, token, first, second);
  });
});
