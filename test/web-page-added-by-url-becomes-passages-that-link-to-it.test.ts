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
import { request } from './support/test-server.js';
import {
  addByAddress,
  documentCount,
  expectAddingRefusedToOthers,
  expectEachAddedAsItsOwnDocument,
  PAGE_BYTES_MAXIMUM,
  PAGE_TIMEOUT_MILLISECONDS,
  startWebSourceKnowledgeBase,
  WEB_PAGE_LIMITS,
  type WebSourceKnowledgeBase,
} from './support/web-source-knowledge-base.js';

const AT_ONCE = 50;

describe.each(TEST_DIALECTS)('web pages added to a knowledge base on %s', (dialect) => {
  let site: FakeWebSite;
  let world: WebSourceKnowledgeBase;

  const addPage = (url: string) => addByAddress(world, { url });

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: PAGE_BYTES_MAXIMUM * 4 });
    world = await startWebSourceKnowledgeBase(dialect, {
      teacherEmail: `pages-teacher-${dialect}@merino.test`,
      knowledgeBase: { name: 'Science pages', chunk_size: 400, chunk_overlap: 20 },
      environment: WEB_PAGE_LIMITS,
    });
  });

  afterAll(async () => {
    await possiblyUnset(world)?.server.close();
    await possiblyUnset(site)?.close();
  });

  it("ingests the page's readable text into passages whose source is the page", async () => {
    const url = `${site.origin}/articles/photosynthesis`;
    const added = await addPage(url);
    expect(added.status, added.text).toBe(202);
    // The page's own title, as a browser tab shows it.
    expect(added.body).toMatchObject({ url, title: 'Photosynthesis – Open Science Notes' });
    expect(await waitForJob(world.server, world.teacher.token, world.knowledgeBaseId, added.body.job_id)).toMatchObject({
      status: 'completed',
    });
    expect(site.fetchedPaths()).toContain('/robots.txt');

    const found = await request(world.server, 'POST', `/api/knowledge-bases/${world.knowledgeBaseId}/query`, {
      token: world.teacher.token,
      body: { query_text: 'chlorophyll chloroplasts light', top_k: 3 },
    });
    expect(found.status, found.text).toBe(200);
    const passage = found.body.results[0];
    expect(passage.data).toContain('chlorophyll absorbs mostly blue and red light');
    expect(passage.metadata).toMatchObject({ source_url: url, title: 'Photosynthesis – Open Science Notes' });
    const document = await request(
      world.server,
      'GET',
      `/api/knowledge-bases/${world.knowledgeBaseId}/documents/${added.body.document_id}`,
      {
        token: world.teacher.token,
      },
    );
    expect(document.body.file_name).toBe('Photosynthesis-Open-Science-Notes.md');
    const content = await request(
      world.server,
      'GET',
      `/api/knowledge-bases/${world.knowledgeBaseId}/documents/${added.body.document_id}/content`,
      {
        token: world.teacher.token,
      },
    );
    expect(content.text).toContain('The light-dependent reactions split water');
    expect(content.text).not.toMatch(/Cookie settings|Log in|analytics|<script/);
  });

  it('fetches nothing for anyone who may not change the knowledge base', async () => {
    site.reset();
    const before = await documentCount(world);
    await expectAddingRefusedToOthers(world, { url: `${site.origin}/articles/water-cycle` }, `pages-${dialect}`);
    expect(site.fetchedPaths()).toEqual([]);
    expect(await documentCount(world)).toBe(before);
  });

  it('refuses every hostile page with a 400 saying why, and adds no document', async () => {
    const before = await documentCount(world);
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
    const unknownField = await request(world.server, 'POST', `/api/knowledge-bases/${world.knowledgeBaseId}/web-pages`, {
      token: world.teacher.token,
      body: { url: `${site.origin}/notes.txt`, depth: 3 },
    });
    expect(unknownField.status).toBe(400);
    expect(await documentCount(world)).toBe(before);
    const health = await request(world.server, 'GET', '/healthz');
    expect(health.status).toBe(200);
  });

  it(`adds ${AT_ONCE} pages sent at once, each as its own document`, async () => {
    await expectEachAddedAsItsOwnDocument(world, { url: `${site.origin}/notes.txt` }, AT_ONCE);
  });
});
