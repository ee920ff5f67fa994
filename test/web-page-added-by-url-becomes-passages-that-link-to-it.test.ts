/**
 * Proves, over real HTTP on both dialects, that a teacher adds a web page to a knowledge base by
 * its URL: its readable text (no navigation, footer or script) is ingested into passages whose
 * source links to the page. Only someone who may change the knowledge base gets anything fetched;
 * every hostile page (a redirect to a private address, a script-only app, a huge or slow page,
 * endless redirects, an image, a 404, a page robots.txt forbids) is a 400 saying why and adds no
 * document; 50 pages added at once each become their own document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const PAGE_BYTES_MAXIMUM = 65_536;
/**
 * Long enough that none of 50 pages fetched at once from loopback times out on a loaded 2-core CI
 * machine (at 1.5 s one did), short enough that the slow page's refusal comes soon.
 */
const PAGE_TIMEOUT_MILLISECONDS = 5_000;
const AT_ONCE = 50;

describe.each(TEST_DIALECTS)('web pages added to a knowledge base on %s', (dialect) => {
  let site: FakeWebSite;
  let server: TestServer;
  let teacher: CreatedUser;
  let knowledgeBase: number;

  const addPage = (url: string, token: string | null = teacher.token) =>
    request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-pages`, { ...(token !== null && { token }), body: { url } });
  const documentCount = async (): Promise<number> =>
    (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token: teacher.token })).body.total;

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: PAGE_BYTES_MAXIMUM * 4 });
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        // The fake site listens on loopback; every other internal address stays refused.
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        WEB_PAGE_MAX_BYTES: String(PAGE_BYTES_MAXIMUM),
        WEB_PAGE_TIMEOUT_MS: String(PAGE_TIMEOUT_MILLISECONDS),
        WEB_PAGE_REDIRECTS_MAX: '3',
      },
    });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `pages-teacher-${dialect}@merino.test`, role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Science pages', chunk_size: 400, chunk_overlap: 20 },
    });
    expect(created.status, created.text).toBe(201);
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(site)?.close();
  });

  it("ingests the page's readable text into passages whose source is the page", async () => {
    const url = `${site.origin}/articles/photosynthesis`;
    const added = await addPage(url);
    expect(added.status, added.text).toBe(202);
    // The page's own title, as a browser tab shows it.
    expect(added.body).toMatchObject({ url, title: 'Photosynthesis – Open Science Notes' });
    expect(await waitForJob(server, teacher.token, knowledgeBase, added.body.job_id)).toMatchObject({ status: 'completed' });
    expect(site.fetchedPaths()).toContain('/robots.txt');

    const found = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: teacher.token,
      body: { query_text: 'chlorophyll chloroplasts light', top_k: 3 },
    });
    expect(found.status, found.text).toBe(200);
    const passage = found.body.results[0];
    expect(passage.data).toContain('chlorophyll absorbs mostly blue and red light');
    expect(passage.metadata).toMatchObject({ source_url: url, title: 'Photosynthesis – Open Science Notes' });
    const document = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${added.body.document_id}`, {
      token: teacher.token,
    });
    expect(document.body.file_name).toBe('Photosynthesis-Open-Science-Notes.md');
    const content = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${added.body.document_id}/content`, {
      token: teacher.token,
    });
    expect(content.text).toContain('The light-dependent reactions split water');
    expect(content.text).not.toMatch(/Cookie settings|Log in|analytics|<script/);
  });

  it('fetches nothing for anyone who may not change the knowledge base', async () => {
    const adminToken = await loginAsAdmin(server);
    const [colleague, learner, otherAdmin] = await peopleInTwoOrganizations(server, adminToken, [
      { email: `pages-colleague-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `pages-learner-${dialect}@merino.test`, role: 'learner', organization: 'A' },
      { email: `pages-other-${dialect}@merino.test`, role: 'admin', organization: 'B' },
    ]);
    site.reset();
    const before = await documentCount();
    const url = `${site.origin}/articles/water-cycle`;
    const answers = await Promise.all([addPage(url, colleague), addPage(url, learner), addPage(url, otherAdmin), addPage(url, null)]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 401]);
    expect(answers.map((answer) => answer.body.error.code)).toEqual(['not_found', 'not_found', 'not_found', 'unauthenticated']);
    expect(site.fetchedPaths()).toEqual([]);
    expect(await documentCount()).toBe(before);
  });

  it('refuses every hostile page with a 400 saying why, and adds no document', async () => {
    const before = await documentCount();
    const reasons: Record<string, RegExp> = {
      '/redirect-private': /private or internal address/,
      '/app': /needs JavaScript/,
      '/huge': /larger than WEB_PAGE_MAX_BYTES/,
      '/huge-declared': /larger than WEB_PAGE_MAX_BYTES/,
      '/slow': new RegExp(`did not send the page within ${PAGE_TIMEOUT_MILLISECONDS} ms`),
      '/redirect-loop': /redirected more than 3 times/,
      '/photo.png': /image\/png, not a web page/,
      '/gone': /HTTP 404/,
      '/members/grades': /asks robots not to read this page/,
    };
    for (const [path, reason] of Object.entries(reasons)) {
      const refused = await addPage(`${site.origin}${path}`);
      expect(refused.status, `${path}: ${refused.text}`).toBe(400);
      expect(refused.body.error, path).toMatchObject({ code: 'unreadable_document', param: 'url' });
      expect(refused.body.error.message, path).toMatch(reason);
    }
    expect(site.fetchedPaths()).not.toContain('/members/grades');
    for (const url of ['ftp://example.org/notes', 'not a url', 'javascript:alert(1)', `http://169.254.169.254/latest/meta-data/`]) {
      const refused = await addPage(url);
      expect(refused.status, `${url}: ${refused.text}`).toBe(400);
      expect(refused.text).not.toMatch(/node_modules|\.ts:\d/);
    }
    const unknownField = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-pages`, {
      token: teacher.token,
      body: { url: `${site.origin}/notes.txt`, depth: 3 },
    });
    expect(unknownField.status).toBe(400);
    expect(await documentCount()).toBe(before);
    const health = await request(server, 'GET', '/healthz');
    expect(health.status).toBe(200);
  });

  it(`adds ${AT_ONCE} pages sent at once, each as its own document`, async () => {
    const before = await documentCount();
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => addPage(`${site.origin}/notes.txt`)));
    const refused = answers.filter((answer) => answer.status !== 202).map((answer) => answer.text);
    expect(
      answers.map((answer) => answer.status),
      refused.join('\n'),
    ).toEqual(Array.from({ length: AT_ONCE }, () => 202));
    expect(new Set(answers.map((answer) => answer.body.document_id)).size).toBe(AT_ONCE);
    expect(await documentCount()).toBe(before + AT_ONCE);
  });
});
