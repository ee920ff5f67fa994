/**
 * Benchmark of URL ingestion: a crawl of same-site links over a local fake site of many linked
 * pages (test/fakes/fake-web-site-server.ts, `/many/N`, page N linking to 2N+1 and 2N+2), read by a
 * real server on SQLite, for each number of pages read at once (WEB_CRAWL_PAGES_IN_FLIGHT).
 *
 *   npm run bench -- bench/url-ingestion.bench.ts
 *   (URL_BENCH_PAGES=200 changes the number of pages; URL_BENCH_IN_FLIGHT=1,4,8 the concurrency)
 *
 * It prints, per concurrency, the pages read, the seconds the crawl took (pages read and stored as
 * documents, their jobs queued) and pages per second; then the seconds until every page's
 * ingestion job had completed, and pages per second end to end. It never passes or fails on a
 * time; it checks only that every page was read.
 */
import { describe, expect, it } from 'vitest';
import { startFakeWebSite } from '../test/fakes/fake-web-site-server.js';
import { waitForJob } from '../test/support/knowledge-uploads.js';
import { createUser, loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { printTable, wholeNumberSetting } from './support/measure.js';

const PAGES = wholeNumberSetting('URL_BENCH_PAGES', 200, 1);
const IN_FLIGHT = (process.env.URL_BENCH_IN_FLIGHT ?? '1,4,8').split(',').map(Number);

describe('URL ingestion from a local fake site', () => {
  it('prints pages per second for a crawl of many linked pages', async () => {
    const site = await startFakeWebSite({ hugeBytes: 1_024, manyPages: PAGES });
    const rows: string[][] = [];
    for (const inFlight of IN_FLIGHT) {
      const server = await startTestServer('sqlite', {
        environment: {
          INGESTION_POLL_MS: '20',
          OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
          WEB_CRAWL_DEPTH_MAX: '10',
          WEB_CRAWL_PAGES_MAX: String(Math.max(PAGES, 1)),
          WEB_CRAWL_PAGES_IN_FLIGHT: String(inFlight),
        },
      });
      try {
        const teacher = await createUser(server, await loginAsAdmin(server), { email: `bench-${inFlight}@merino.test`, role: 'creator' });
        const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Many pages' } });
        const knowledgeBase = created.body.id as number;
        const started = performance.now();
        const crawl = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-crawls`, {
          token: teacher.token,
          body: { url: `${site.origin}/many/0`, depth: 10, pages: PAGES },
        });
        expect(crawl.status, crawl.text).toBe(202);
        let view = crawl.body;
        while (view.status === 'running') {
          await new Promise((resolve) => setTimeout(resolve, 20));
          view = (
            await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/web-crawls/${crawl.body.id}`, { token: teacher.token })
          ).body;
        }
        const crawled = (performance.now() - started) / 1_000;
        expect(view.pages_read, JSON.stringify(view.failures.slice(0, 5))).toBe(PAGES);
        for (const document of view.documents) await waitForJob(server, teacher.token, knowledgeBase, document.job_id, 120_000);
        const indexed = (performance.now() - started) / 1_000;
        rows.push([
          String(inFlight),
          String(view.pages_read),
          crawled.toFixed(2),
          (view.pages_read / crawled).toFixed(1),
          indexed.toFixed(2),
          (view.pages_read / indexed).toFixed(1),
        ]);
      } finally {
        await server.close();
      }
    }
    await site.close();
    printTable(
      `Crawl of ${PAGES} linked pages from a local fake site (SQLite, no embedding model)`,
      [
        { label: 'in flight', width: 10 },
        { label: 'pages', width: 6 },
        { label: 'crawl s', width: 8 },
        { label: 'pages/s read', width: 13 },
        { label: 'indexed s', width: 10 },
        { label: 'pages/s indexed', width: 16 },
      ],
      rows,
    );
  });
});
