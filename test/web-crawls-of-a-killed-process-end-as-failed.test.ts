/**
 * Proves on both dialects that a crawl of same-site links never stays "running" after its process
 * died: a real server process is killed (`kill -9`) while its crawl waits on a slow page, and the
 * server started next over the same store marks the crawl failed at start-up, saying why, with the
 * pages it had read kept as documents. And that the periodic leftover sweep fails a running crawl as
 * soon as its runner is known to be gone (dead on this machine, or its WEB_CRAWL_LEASE_MS lease
 * lapsed), never one whose runner lives, including a live crawl that outlasts its lease by renewing it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CRAWL_INTERRUPTED_REASON } from '../src/knowledge/web-sources/abandoned-web-crawls.js';
import { UPLOAD_LEFTOVER_SWEEP } from '../src/process/crash-leftovers.js';
import { readPeriodicRun } from '../src/store/periodic-runs-repository.js';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { leaseHoldersOfEveryKind } from './support/lease-holders.js';
import { startServerProcess } from './support/server-process.js';
import { startedProcesses } from './support/started-processes.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer } from './support/test-server.js';

const SETTLE_TIMEOUT_MILLISECONDS = 60_000;

async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MILLISECONDS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never settled: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(TEST_DIALECTS)('crawls left by a killed process on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let site: FakeWebSite | undefined;
  const started = startedProcesses();
  const { processes, servers, children } = started;

  afterEach(async () => {
    await started.end();
    await site?.close();
    await database?.drop();
    database = site = undefined;
  });

  it('are failed with their reason by the server started next, keeping the pages they read', async () => {
    site = await startFakeWebSite({ hugeBytes: 1_024 });
    database = await createTestDatabase(dialect);
    // The slow page never finishes within the test, so the crawl is surely running when the process dies.
    const environment = { INGESTION_POLL_MS: '20', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', WEB_PAGE_TIMEOUT_MS: '600000' };
    const killed = await startServerProcess(database, environment);
    processes.push(killed);
    const token = await loginAsAdmin(killed);
    const knowledgeBase = (await request(killed, 'POST', '/api/knowledge-bases', { token, body: { name: 'Crawled' } })).body.id as number;
    const started = await request(killed, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-crawls`, {
      token,
      body: { url: `${site.origin}/course/`, depth: 1, pages: 20 },
    });
    expect(started.status, started.text).toBe(202);
    const crawlPath = `/api/knowledge-bases/${knowledgeBase}/web-crawls/${started.body.id}`;
    await waitUntil(async () => {
      const crawl = (await request(killed, 'GET', crawlPath, { token })).body;
      return crawl.status === 'running' && crawl.pages_read >= 2 && site!.fetchedPaths().includes('/slow');
    }, 'the crawl reading pages and waiting on the slow one');
    await killed.kill();

    const next = await startServerProcess(database, environment);
    processes.push(next);
    // The start-up sweep runs before the server listens: the crawl has already ended.
    const crawl = (await request(next, 'GET', crawlPath, { token: await loginAsAdmin(next) })).body;
    expect(crawl.status).toBe('failed');
    expect(crawl.finished_at).not.toBeNull();
    expect(crawl.failures).toContainEqual({ url: `${site.origin}/course/`, reason: CRAWL_INTERRUPTED_REASON });
    expect(crawl.pages_read).toBeGreaterThanOrEqual(2);
    for (const document of crawl.documents) {
      const shown = await request(next, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${document.document_id}`, {
        token: await loginAsAdmin(next),
      });
      expect(shown.status).toBe(200);
      expect(shown.body.source_url).toBe(document.url);
    }
  }, 180_000);

  it('are failed by the periodic sweep once their runner is gone or its lease lapsed, never while it lives and renews', async () => {
    site = await startFakeWebSite({ hugeBytes: 1_024 });
    const server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        WEB_PAGE_TIMEOUT_MS: '600000',
        UPLOAD_SWEEP_INTERVAL_MS: '200',
        WEB_CRAWL_LEASE_MS: '1000',
      },
    });
    servers.push(server);
    const db = server.store.db;
    const token = await loginAsAdmin(server);
    const adminId = (await request(server, 'GET', '/api/me', { token })).body.id as number;
    const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Held crawls' } })).body
      .id as number;

    // A crawl of this live server, held on the slow page far longer than its one-second lease.
    const live = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-crawls`, {
      token,
      body: { url: `${site.origin}/course/`, depth: 1, pages: 20 },
    });
    expect(live.status, live.text).toBe(202);

    const held = await leaseHoldersOfEveryKind(children);
    const ids: Record<string, number> = { liveServer: live.body.id as number };
    for (const [name, hold] of Object.entries(held)) {
      const now = new Date().toISOString();
      const row = await db
        .insertInto('web_crawls')
        .values({
          knowledge_base_id: knowledgeBase,
          requested_by: adminId,
          start_url: `https://example.org/${name}/`,
          depth: 1,
          pages_maximum: 5,
          status: 'running',
          pages_read: 1,
          pages_failed: 0,
          pages_found: 3,
          failures: '[]',
          documents: '[]',
          runner: hold.owner,
          lease_expires_at: hold.leaseExpiresAt,
          created_at: now,
          updated_at: now,
          finished_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids[name] = row.id;
    }
    const statusOf = async (name: string) => {
      const crawl = (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/web-crawls/${ids[name]}`, { token })).body;
      return { status: crawl.status, reasons: crawl.failures.map((failure: { reason: string }) => failure.reason) };
    };

    // Sweeps for well past the live crawl's one-second lease, which it renews every third of it.
    const before = (await readPeriodicRun(db, UPLOAD_LEFTOVER_SWEEP))?.runCount ?? 0;
    const startedWaiting = Date.now();
    await waitUntil(
      async () => ((await readPeriodicRun(db, UPLOAD_LEFTOVER_SWEEP))?.runCount ?? 0) >= before + 3 && Date.now() - startedWaiting > 3_000,
      'sweeps for three seconds',
    );
    expect(await statusOf('deadHere')).toEqual({ status: 'failed', reasons: [CRAWL_INTERRUPTED_REASON] });
    expect(await statusOf('lapsedElsewhere')).toEqual({ status: 'failed', reasons: [CRAWL_INTERRUPTED_REASON] });
    expect(await statusOf('liveHere')).toEqual({ status: 'running', reasons: [] });
    expect(await statusOf('liveElsewhere')).toEqual({ status: 'running', reasons: [] });
    expect((await statusOf('liveServer')).status).toBe('running');
  }, 120_000);
});
