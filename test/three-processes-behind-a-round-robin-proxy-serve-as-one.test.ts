/**
 * Three Merino processes on one real PostgreSQL, each with its own DATA_DIR as on three machines,
 * behind a round-robin load balancer (test/support/round-robin-proxy.ts), serve as one server.
 * Every request goes through the proxy, whose record says which process served it (and which
 * checks each process's health endpoint, as balancers do):
 * - the foundation walk (test/support/foundation-walk.ts) passes unchanged;
 * - a file uploaded on one process is read by a single-file assistant chatting on another, and
 *   streamed through the proxy from the third;
 * - a session made on one process and ended on another fails on all three;
 * - failed logins spread over the three hit the account's limit as if on one server;
 * - the chat-retention purge deletes an expired chat, and the three processes together run it
 *   about once per interval, as one fleet, not three times (the `periodic_runs` claim row);
 * - the process ingesting a knowledge-base document is killed with SIGKILL, and the proxy's health
 *   check takes it out of the rotation; another process takes the job over when its lease runs out and finishes it with the same chunks, in the same order, as an
 *   undisturbed run; its original downloads byte for byte through a process it was not uploaded to;
 * - a process stopped with SIGTERM fails its readiness, the balancer stops sending it requests
 *   while it drains, and callers asking all along see not one failure.
 * With `postgres` storage, and with `s3` storage on the S3-compatible fake.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_RETENTION_PURGE } from '../src/chats/chat-retention-purger.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { readPeriodicRun } from '../src/store/periodic-runs-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { startGatedEmbeddingServer, type GatedEmbeddingServer } from './fakes/gated-embedding-server.js';
import { startFakeS3Server, type FakeS3Server } from './fakes/fake-s3-server.js';
import { s3UrlFor } from './support/blob-drivers.js';
import { foundationWalk } from './support/foundation-walk.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './support/round-robin-proxy.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { createUser, login, loginAsAdmin, request } from './support/test-server.js';

const PROCESSES = 3;
/** What the balancer checks on each process (readiness, as docs/deployment.md advises), and how often. */
const HEALTH_PATH = '/readyz';
const HEALTH_INTERVAL_MILLISECONDS = 50;
const DRAIN_DELAY_MILLISECONDS = 1_500;
/** Callers that keep asking through the balancer while a process stops, and how many calls each makes after it stopped. */
const STEADY_CALLERS = 4;
const STEADY_CALLS_AFTER_STOP = 10;
/** Short, so that the job of a killed process moves on quickly; renewed every third of it. */
const LEASE_MILLISECONDS = 2_000;
const PURGE_INTERVAL_MILLISECONDS = 300;
/** How long the purge runs are counted for: several intervals. */
const PURGE_WINDOW_MILLISECONDS = 3_000;
const LOGIN_FAILURES_ALLOWED = 3;
const WRONG_PASSWORD = 'not-the-password-at-all';
const DAY_MILLISECONDS = 86_400_000;
const FILE_TEXT = 'Lab safety: goggles on before the burner is lit, and off only once it is out.';
/** About 1.6 MB of markdown, as the document in issue 16: many sections, many chunks. */
const DOCUMENT_TEXT = Array.from(
  { length: 400 },
  (_, section) =>
    `## Section ${section + 1}: eruptions\n\n` +
    Array.from(
      { length: 12 },
      (__, paragraph) =>
        `Paragraph ${paragraph + 1} of section ${section + 1}. Basalt forms when lava cools quickly at the surface, ` +
        'while granite cools slowly deep underground and grows large crystals of quartz, feldspar and mica. ' +
        'Pumice traps gas bubbles and floats on water; obsidian cools so fast that no crystals form at all.\n\n',
    ).join(''),
).join('');

const storages = TEST_DIALECTS.includes('postgres') ? (['postgres', 's3'] as const) : [];

/** The pid in an ingestion runner's name (`<machine>:<pid>:<random>`, src/ingestion/runner-identity.ts). */
function pidOfRunner(owner: string): number {
  const parts = owner.split(':');
  return Number(parts[parts.length - 2]);
}

async function until<Value>(what: string, probe: () => Promise<Value | undefined>, timeoutMilliseconds = 30_000): Promise<Value> {
  const deadline = Date.now() + timeoutMilliseconds;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMilliseconds} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(storages)('three processes behind a round-robin proxy, with %s storage', (storage) => {
  let database: TestDatabase;
  let s3: FakeS3Server | undefined;
  let embeddings: GatedEmbeddingServer;
  let store: Store;
  let proxy: RoundRobinProxy;
  const processes: ServerProcess[] = [];
  const folders: string[] = [];
  let adminToken: string;

  /** The process that served the `index`-th request through the proxy (negative: from the end). */
  function servedBy(index: number): ServerProcess {
    const upstream = proxy.served.at(index)?.upstream;
    const served = processes.find((started) => started.baseUrl === upstream);
    if (served === undefined) throw new Error(`no process served request ${index}`);
    return served;
  }

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    embeddings = await startGatedEmbeddingServer();
    if (storage === 's3') s3 = await startFakeS3Server();
    const environment: Record<string, string> = {
      // Shared, as docs/deployment.md asks: each machine would otherwise make its own key.
      MERINO_SECRET_KEY: 'one secret key for the whole fleet',
      INGESTION_POLL_MS: '20',
      INGESTION_LEASE_MS: String(LEASE_MILLISECONDS),
      OPENAI_API_KEY: 'sk-fleet-test-key',
      OPENAI_BASE_URL: embeddings.baseUrl,
      LOGIN_FAILURES_PER_ACCOUNT_MAX: String(LOGIN_FAILURES_ALLOWED),
      CHAT_PURGE_INTERVAL_MS: String(PURGE_INTERVAL_MILLISECONDS),
      // Several of the balancer's check intervals, as docs/deployment.md advises, with room for a busy machine.
      SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_DELAY_MILLISECONDS),
      ...(s3 !== undefined && {
        STORAGE_URL: s3UrlFor(s3),
        AWS_ACCESS_KEY_ID: 'merino-test-key',
        AWS_SECRET_ACCESS_KEY: 'merino-test-secret',
      }),
    };
    // All three start at once over an empty database, as a fleet does after an upgrade.
    // Each is kept as soon as it listens, so that afterAll stops it even when another failed to start.
    await Promise.all(
      Array.from({ length: PROCESSES }, async () => {
        const folder = await mkdtemp(path.join(os.tmpdir(), 'merino-fleet-'));
        folders.push(folder);
        processes.push(await startServerProcess(database, { ...environment, DATA_DIR: folder }));
      }),
    );
    proxy = await startRoundRobinProxy(
      processes.map((started) => started.baseUrl),
      { healthPath: HEALTH_PATH, healthIntervalMilliseconds: HEALTH_INTERVAL_MILLISECONDS },
    );
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    adminToken = await loginAsAdmin(proxy);
  }, 120_000);

  afterAll(async () => {
    possiblyUnset(embeddings)?.open();
    for (const started of processes.splice(0)) await started.kill();
    await possiblyUnset(proxy)?.close();
    await possiblyUnset(store)?.close();
    await possiblyUnset(embeddings)?.close();
    await s3?.close();
    await possiblyUnset(database)?.drop();
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  // What touches no stored file runs once, with postgres storage; the s3 fleet repeats only what reads and writes blobs.
  if (storage === 'postgres') {
    describe('walk the foundation through the proxy', () => {
      const steps = foundationWalk(() => ({
        target: proxy,
        adminToken,
        createOrganization: (slug, name) => insertOrganization(store.db, slug, name),
      }));
      for (const step of steps) it(step.name, () => step.run());
      it('spread the walk over all three processes', () => {
        expect(new Set(proxy.served.map((served) => served.upstream)).size).toBe(PROCESSES);
      });
    });
  }

  it('reads a file uploaded on one process from a chat on another', async () => {
    const form = new FormData();
    form.append('file', new Blob([FILE_TEXT]), 'lab-safety.md');
    const uploaded = await fetch(`${proxy.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const uploader = servedBy(-1);
    const filePath = ((await uploaded.json()) as { file_path: string }).file_path;
    const assistant = await request(proxy, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: 'Lab coach',
        prompt_template: 'Rules:{file}\nQuestion:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'simple-bypass',
          tools: [{ type: 'single_file_rag', config: { file_path: filePath } }],
        },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const client = new OpenAI({ apiKey: adminToken, baseURL: `${proxy.baseUrl}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: `lamb_assistant.${assistant.body.id}`,
      messages: [{ role: 'user', content: 'When do the goggles come off?' }],
    });
    expect(servedBy(-1)).not.toBe(uploader);
    expect(answer.choices[0]!.message.content).toContain(FILE_TEXT);

    // Streamed through the proxy from the third process: the chunks arrive as the server sent them.
    const stream = await client.chat.completions.create({
      model: `lamb_assistant.${assistant.body.id}`,
      messages: [{ role: 'user', content: 'And the burner?' }],
      stream: true,
    });
    let streamed = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      streamed += chunk.choices[0]?.delta.content ?? '';
    }
    expect(new Set(proxy.served.slice(-3).map((served) => served.upstream)).size).toBe(PROCESSES);
    expect(chunks).toBeGreaterThan(1);
    expect(streamed).toContain(FILE_TEXT);
  });

  if (storage === 'postgres') {
    it('ends on every process a session made on one and logged out on another', async () => {
      const visitor = await createUser(proxy, adminToken, { email: `visitor-${storage}@merino.test`, role: 'learner' });
      const token = await login(proxy, visitor.email, visitor.password);
      const loggedInOn = servedBy(-1);
      const loggedOut = await request(proxy, 'POST', '/api/auth/logout', { token });
      expect(loggedOut.status).toBe(204);
      expect(servedBy(-1)).not.toBe(loggedInOn);
      const checks = [];
      for (let round = 0; round < PROCESSES; round += 1) checks.push((await request(proxy, 'GET', '/api/me', { token })).status);
      expect(checks).toEqual(Array.from({ length: PROCESSES }, () => 401));
      expect(new Set(proxy.served.slice(-PROCESSES).map((served) => served.upstream)).size).toBe(PROCESSES);
    });

    it('counts failed logins on all three processes against one limit', async () => {
      const learner = await createUser(proxy, adminToken, { email: `guessed-${storage}@merino.test`, role: 'learner' });
      const failures = [];
      for (let attempt = 0; attempt < LOGIN_FAILURES_ALLOWED; attempt += 1) {
        failures.push(
          (await request(proxy, 'POST', '/api/auth/login', { body: { email: learner.email, password: WRONG_PASSWORD } })).status,
        );
      }
      expect(failures).toEqual(Array.from({ length: LOGIN_FAILURES_ALLOWED }, () => 401));
      // One failure on each process: a count kept per process would still be under the limit everywhere.
      expect(new Set(proxy.served.slice(-LOGIN_FAILURES_ALLOWED).map((served) => served.upstream)).size).toBe(PROCESSES);
      for (let round = 0; round < PROCESSES; round += 1) {
        const refused = await request(proxy, 'POST', '/api/auth/login', { body: { email: learner.email, password: learner.password } });
        expect(refused.status, refused.text).toBe(429);
        expect(refused.body.error.code).toBe('rate_limited');
      }
    });

    it('purges an expired chat, with the three processes running the purge as one fleet', async () => {
      const me = await request(proxy, 'GET', '/api/me', { token: adminToken });
      const assistant = await request(proxy, 'POST', '/api/assistants', {
        token: adminToken,
        body: { name: 'Short-lived', metadata: { connector: 'bypass', llm: 'simple-bypass' } },
      });
      const chat = await request(proxy, 'POST', '/api/chats', { token: adminToken, body: { assistant_id: assistant.body.id } });
      expect(chat.status, chat.text).toBe(201);
      const chatId = chat.body.id as number;
      const longAgo = new Date(Date.now() - 10 * DAY_MILLISECONDS).toISOString();
      await store.db.updateTable('chats').set({ updated_at: longAgo }).where('id', '=', chatId).execute();
      const retention = await request(proxy, 'PATCH', `/api/organizations/${me.body.organization_id}/settings`, {
        token: adminToken,
        body: { chat_retention_days: 7 },
      });
      expect(retention.status, retention.text).toBe(200);
      await until('the expired chat deleted', async () =>
        (await store.db.selectFrom('chats').select('id').where('id', '=', chatId).executeTakeFirst()) === undefined ? true : undefined,
      );

      // The purge's claim row counts the fleet's runs.
      const purgeRuns = async (): Promise<number> => (await readPeriodicRun(store.db, CHAT_RETENTION_PURGE))?.runCount ?? 0;
      const countedFrom = Date.now();
      const before = await purgeRuns();
      await new Promise((resolve) => setTimeout(resolve, PURGE_WINDOW_MILLISECONDS));
      const after = await purgeRuns();
      const intervals = (Date.now() - countedFrom) / PURGE_INTERVAL_MILLISECONDS;
      // One fleet starts a run at most once per interval: at most one per interval counted, plus
      // one for the edges of the count. Three processes each on their own would run about three
      // times as often.
      expect(after - before).toBeGreaterThan(0);
      expect(after - before).toBeLessThanOrEqual(Math.floor(intervals) + 2);
    });
  }

  it('finishes on another process, with the same chunks as an undisturbed run, a document whose ingesting process was killed', async () => {
    const knowledgeBaseBody = { embeddings: { connector: 'openai', model: 'text-embedding-3-small' } };
    const disturbed = await request(proxy, 'POST', '/api/knowledge-bases', {
      token: adminToken,
      body: { name: 'Volcanoes', ...knowledgeBaseBody },
    });
    expect(disturbed.status, disturbed.text).toBe(201);
    const uploaded = await uploadDocument(proxy, adminToken, disturbed.body.id, 'volcanoes.md', DOCUMENT_TEXT);
    expect(uploaded.status, uploaded.text).toBe(202);
    const uploader = servedBy(-1);
    const jobId = uploaded.body.job_id as number;

    // The gate holds the first embeddings request: the job is in its runner's hands, mid-way.
    await embeddings.waitForRequests(1);
    const held = await store.db.selectFrom('ingestion_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(held).toMatchObject({ status: 'processing', attempts: 1 });
    const ingester = processes.find((started) => started.child.pid === pidOfRunner(held.lease_owner!));
    expect(ingester, `no process of the fleet has pid ${pidOfRunner(held.lease_owner!)}`).toBeDefined();
    await ingester!.kill();
    await until('the balancer took the killed process out', async () => (proxy.upstreams().includes(ingester!.baseUrl) ? undefined : true));
    embeddings.open();

    // The undisturbed run of the same document goes on meanwhile, on whichever process is free first.
    const reference = await request(proxy, 'POST', '/api/knowledge-bases', {
      token: adminToken,
      body: { name: 'Volcanoes again', ...knowledgeBaseBody },
    });
    const undisturbedUpload = await uploadDocument(proxy, adminToken, reference.body.id, 'volcanoes.md', DOCUMENT_TEXT);
    expect(undisturbedUpload.status, undisturbedUpload.text).toBe(202);
    const [finished, undisturbed] = await Promise.all([
      waitForJob(proxy, adminToken, disturbed.body.id, jobId, 60_000),
      waitForJob(proxy, adminToken, reference.body.id, undisturbedUpload.body.job_id, 60_000),
    ]);
    // Attempt 2 on a live process: the killed one is gone, and its lease ran out first.
    expect(finished).toMatchObject({ status: 'completed', attempts: 2, error: null });
    expect(undisturbed).toMatchObject({ status: 'completed', attempts: 1, error: null });
    const chunksOf = (documentId: number) =>
      store.db
        .selectFrom('kb_chunks')
        .select(['chunk_index', 'text'])
        .where('document_id', '=', documentId)
        .orderBy('chunk_index')
        .execute();
    const resumedChunks = await chunksOf(uploaded.body.document_id);
    expect(resumedChunks.length).toBeGreaterThan(100);
    expect(resumedChunks).toEqual(await chunksOf(undisturbedUpload.body.document_id));

    // The original, through a live process that did not take the upload.
    const downloader = processes.find((started) => started !== uploader && started !== ingester)!;
    const download = await fetch(
      `${downloader.baseUrl}/api/knowledge-bases/${disturbed.body.id}/documents/${uploaded.body.document_id}/content`,
      {
        headers: { authorization: `Bearer ${adminToken}` },
      },
    );
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(DOCUMENT_TEXT);
  }, 120_000);

  if (storage === 'postgres') {
    it('stops a process with SIGTERM under steady load without one failed request', async () => {
      const stopping = processes.find((started) => proxy.upstreams().includes(started.baseUrl))!;
      const exited = new Promise<number | null>((resolve) => stopping.child.once('exit', (code) => resolve(code)));
      // How many requests the balancer had passed on when the process exited; set then.
      const stop: { servedAt?: number } = {};
      const statuses: number[] = [];
      // Callers keep asking through the balancer, before, during and after the stop.
      const callers = Array.from({ length: STEADY_CALLERS }, async () => {
        for (let afterStop = 0; afterStop < STEADY_CALLS_AFTER_STOP;) {
          statuses.push((await request(proxy, 'GET', '/api/me', { token: adminToken })).status);
          if (stop.servedAt !== undefined) afterStop += 1;
        }
      });
      await until('the process to stop served a caller', async () =>
        proxy.served.slice(-STEADY_CALLERS * 2).some((served) => served.upstream === stopping.baseUrl) ? true : undefined,
      );
      const servedBeforeStop = proxy.served.length;
      stopping.child.kill('SIGTERM');
      // It fails /readyz at once and serves on for SHUTDOWN_DRAIN_DELAY_MS; the balancer stops sending it requests meanwhile.
      expect(await exited).toBe(0);
      stop.servedAt = proxy.served.length;
      await Promise.all(callers);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(proxy.served.length).toBeGreaterThan(servedBeforeStop);
      expect(proxy.served.slice(stop.servedAt).map((served) => served.upstream)).not.toContain(stopping.baseUrl);
    });
  }
});
