/**
 * Proves, over real HTTP on both dialects, that a teacher adds a page and the pages it links to on
 * the same site as a crawl: the request answers 202 at once, the crawl reads each page under the
 * outbound rules and robots.txt, to the depth and page count asked, each page becoming its own
 * document with its `source_url`; off-site links are never fetched, a loop or a link with a
 * fragment reads a page once, and hostile pages (robots.txt, a redirect to a private address or off
 * the site, a slow or huge page) are listed with their reasons without failing the others. Only
 * someone who may change the knowledge base starts a crawl, only someone who may view it reads it;
 * bounds past their settings are refused; 50 crawls started at once each run; /healthz answers
 * while a crawl runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const AT_ONCE = 50;

describe.each(TEST_DIALECTS)('following same-site links on %s', (dialect) => {
  let site: FakeWebSite;
  let server: TestServer;
  let teacher: CreatedUser;
  let knowledgeBase: number;
  let colleague: string;
  let learner: string;
  let otherAdmin: string;

  const startCrawl = (body: Record<string, unknown>, token: string | null = teacher.token) =>
    request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-crawls`, { ...(token !== null && { token }), body });
  const readCrawl = (id: number, token: string | null = teacher.token) =>
    request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/web-crawls/${id}`, { ...(token !== null && { token }) });
  const finishedCrawl = async (id: number): Promise<any> => {
    await expect.poll(async () => (await readCrawl(id)).body.status, { timeout: 20_000, interval: 50 }).not.toBe('running');
    return (await readCrawl(id)).body;
  };
  const documentCount = async (): Promise<number> =>
    (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token: teacher.token })).body.total;

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: 262_144 });
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        WEB_PAGE_MAX_BYTES: '65536',
        // 50 crawls fetch at once: 1.5 s was tight on a loaded 2-core CI machine.
        WEB_PAGE_TIMEOUT_MS: '5000',
        WEB_CRAWL_DEPTH_MAX: '3',
        WEB_CRAWL_PAGES_MAX: '30',
      },
    });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `crawl-teacher-${dialect}@merino.test`, role: 'creator' });
    const people = await peopleInTwoOrganizations(server, adminToken, [
      { email: `crawl-colleague-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `crawl-learner-${dialect}@merino.test`, role: 'learner', organization: 'A' },
      { email: `crawl-other-${dialect}@merino.test`, role: 'admin', organization: 'B' },
    ]);
    [colleague, learner, otherAdmin] = [people[0]!, people[1]!, people[2]!];
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Course pages' } });
    expect(created.status, created.text).toBe(201);
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(site)?.close();
  });

  it('reads every same-site page within the depth once, each as its own document, and lists the pages that failed', async () => {
    site.reset();
    const started = await startCrawl({ url: `${site.origin}/course/`, depth: 3, pages: 20 });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ status: 'running', depth: 3, pages_maximum: 20, url: `${site.origin}/course/` });
    // /healthz answers while the crawl waits on the slow page.
    expect((await request(server, 'GET', '/healthz')).status).toBe(200);
    const crawl = await finishedCrawl(started.body.id);
    expect(crawl.status).toBe('completed');
    const read = crawl.documents.map((document: { url: string }) => new URL(document.url).pathname).sort();
    expect(read).toEqual(['/course/', '/course/cells', '/course/evolution', '/course/genetics']);
    expect(crawl.pages_read).toBe(4);
    const reasons = Object.fromEntries(
      crawl.failures.map((failure: { url: string; reason: string }) => [new URL(failure.url).pathname, failure.reason]),
    );
    expect(reasons).toEqual({
      '/members/grades': expect.stringMatching(/asks robots not to read this page/),
      '/redirect-private': expect.stringMatching(/off the site|private or internal address/),
      '/course/moved': expect.stringMatching(/off the site, to localhost/),
      '/slow': expect.stringMatching(/did not send the page within 5000 ms/),
      '/huge': expect.stringMatching(/larger than WEB_PAGE_MAX_BYTES/),
    });
    expect(crawl.pages_failed).toBe(5);
    const fetched = site.fetchedPaths();
    expect(fetched.filter((path) => path === '/course/cells')).toHaveLength(1);
    expect(fetched.filter((path) => path === '/course/')).toHaveLength(1);
    expect(fetched.filter((path) => path === '/robots.txt')).toHaveLength(1);
    expect(fetched).not.toContain('/members/grades');
    expect(fetched).not.toContain('/articles/water-cycle');
    for (const document of crawl.documents) {
      expect(await waitForJob(server, teacher.token, knowledgeBase, document.job_id)).toMatchObject({ status: 'completed' });
      const shown = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${document.document_id}`, {
        token: teacher.token,
      });
      expect(shown.body.source_url).toBe(document.url);
    }
    const found = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: teacher.token,
      body: { query_text: 'natural selection and evolution', top_k: 1 },
    });
    expect(found.body.results[0].metadata.source_url).toBe(`${site.origin}/course/evolution`);
  });

  it('stops at the depth and the page count asked', async () => {
    const shallow = await finishedCrawl((await startCrawl({ url: `${site.origin}/course/cells`, depth: 1 })).body.id);
    expect(shallow.documents.map((document: { url: string }) => new URL(document.url).pathname).sort()).toEqual([
      '/course/',
      '/course/cells',
      '/course/genetics',
    ]);
    const few = await finishedCrawl((await startCrawl({ url: `${site.origin}/course/`, depth: 3, pages: 2 })).body.id);
    expect(Number(few.pages_read) + Number(few.pages_failed)).toBe(2);
    expect(few.documents).toHaveLength(2);
  });

  it('starts a crawl only for whoever may change the knowledge base, and shows it only to whoever may view it', async () => {
    site.reset();
    const before = await documentCount();
    const body = { url: `${site.origin}/course/`, pages: 1 };
    const answers = await Promise.all([
      startCrawl(body, colleague),
      startCrawl(body, learner),
      startCrawl(body, otherAdmin),
      startCrawl(body, null),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 401]);
    expect(site.fetchedPaths()).toEqual([]);
    const own = await startCrawl(body);
    expect(own.status).toBe(202);
    await finishedCrawl(own.body.id);
    const reads = await Promise.all([
      readCrawl(own.body.id, colleague),
      readCrawl(own.body.id, learner),
      readCrawl(own.body.id, otherAdmin),
      readCrawl(own.body.id, null),
    ]);
    expect(reads.map((answer) => answer.status)).toEqual([404, 404, 404, 401]);
    expect(await documentCount()).toBe(before + 1);
  });

  it('refuses hostile requests and reports a start page that cannot be read', async () => {
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ url: `${site.origin}/course/`, depth: 4 }, /WEB_CRAWL_DEPTH_MAX/],
      [{ url: `${site.origin}/course/`, pages: 31 }, /WEB_CRAWL_PAGES_MAX/],
      [{ url: `${site.origin}/course/`, pages: 0 }, /pages/],
      [{ url: 'ftp://example.org/course' }, /http or https/],
      [{ url: `${site.origin}/course/`, follow: true }, /follow/],
    ];
    for (const [body, reason] of refusals) {
      const refused = await startCrawl(body);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.text).toMatch(reason);
    }
    const missing = await readCrawl(999_999);
    expect(missing.status).toBe(404);
    const privateStart = await finishedCrawl((await startCrawl({ url: 'http://169.254.169.254/latest/meta-data/' })).body.id);
    expect(privateStart).toMatchObject({ status: 'failed', pages_read: 0 });
    expect(privateStart.failures[0].reason).toMatch(/private or internal address/);
    const forbidden = await finishedCrawl((await startCrawl({ url: `${site.origin}/members/grades` })).body.id);
    expect(forbidden.status).toBe('failed');
    expect(forbidden.failures[0].reason).toMatch(/asks robots not to read this page/);
  });

  it(`runs ${AT_ONCE} crawls started at once`, async () => {
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, () => startCrawl({ url: `${site.origin}/course/evolution`, pages: 1 })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: AT_ONCE }, () => 202));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(AT_ONCE);
    const crawls = await Promise.all(answers.map((answer) => finishedCrawl(answer.body.id)));
    expect(crawls.map((crawl) => crawl.pages_read)).toEqual(Array.from({ length: AT_ONCE }, () => 1));
  });
});
