/**
 * Proves, over real HTTP on both dialects, that a document added from a web page is refreshed on
 * demand: an unchanged page only moves its last-checked time and says "unchanged"; a changed page is
 * re-indexed (its new text found, its old text gone); a page that now fails keeps its passages and
 * records why. Only someone who may change the knowledge base refreshes; an uploaded document, a
 * video's transcript, a schedule shorter than the minimum and unknown fields are refused; 50
 * refreshes at once all answer.
 * Last, a schedule (`every_seconds`) refreshes a changed page with nobody asking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const AT_ONCE = 50;
const FIRST_TEXT = 'The first version of this page explains the phases of the moon, from the new moon to the full moon.';

describe.each(TEST_DIALECTS)('refreshing a web page document on %s', (dialect) => {
  let site: FakeWebSite;
  let server: TestServer;
  let teacher: CreatedUser;
  let knowledgeBase: number;
  let pageDocument: number;
  let people: string[];

  const refresh = (documentId: number, body: Record<string, unknown> = {}, token: string | null = teacher.token) =>
    request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}/refresh`, {
      ...(token !== null && { token }),
      body,
    });
  const documentOf = async (documentId: number): Promise<any> =>
    (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, { token: teacher.token })).body;
  const topPassage = async (query: string): Promise<string> =>
    (
      await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
        token: teacher.token,
        body: { query_text: query, top_k: 5 },
      })
    ).body.results
      .map((result: { data: string }) => result.data)
      .join('\n');

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: 1_024 });
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        // 50 refreshes fetch at once: 1.5 s was tight on a loaded 2-core CI machine.
        WEB_PAGE_TIMEOUT_MS: '5000',
        WEB_REFRESH_INTERVAL_MIN_SECONDS: '1',
        WEB_REFRESH_SWEEP_MS: '100',
      },
    });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `refresh-teacher-${dialect}@merino.test`, role: 'creator' });
    people = await peopleInTwoOrganizations(server, adminToken, [
      { email: `refresh-colleague-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `refresh-learner-${dialect}@merino.test`, role: 'learner', organization: 'A' },
      { email: `refresh-other-${dialect}@merino.test`, role: 'admin', organization: 'B' },
    ]);
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Astronomy pages' } });
    knowledgeBase = created.body.id;
    site.setMutableText(FIRST_TEXT);
    const added = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-pages`, {
      token: teacher.token,
      body: { url: `${site.origin}/mutable` },
    });
    expect(added.status, added.text).toBe(202);
    pageDocument = added.body.document_id;
    expect(await waitForJob(server, teacher.token, knowledgeBase, added.body.job_id)).toMatchObject({ status: 'completed' });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(site)?.close();
  });

  it('says "unchanged" for an unchanged page and re-indexes nothing', async () => {
    const before = await documentOf(pageDocument);
    const refreshed = await refresh(pageDocument);
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body).toMatchObject({
      document_id: pageDocument,
      outcome: 'unchanged',
      reason: null,
      job_id: null,
      every_seconds: null,
    });
    const after = await documentOf(pageDocument);
    expect(after).toMatchObject({ job_id: before.job_id, chunk_count: before.chunk_count, refresh_outcome: 'unchanged' });
    expect(after.last_checked_at).toBe(refreshed.body.checked_at);
    expect(after.source_url).toBe(`${site.origin}/mutable`);
  });

  it('re-indexes a changed page: its new text is found and its old text is gone', async () => {
    site.setMutableText('The second version of this page explains solar eclipses, when the moon hides the sun from the earth.');
    const refreshed = await refresh(pageDocument);
    expect(refreshed.body).toMatchObject({ outcome: 'changed', reason: null });
    expect(await waitForJob(server, teacher.token, knowledgeBase, refreshed.body.job_id)).toMatchObject({ status: 'completed' });
    const passages = await topPassage('solar eclipses moon hides the sun');
    expect(passages).toContain('solar eclipses');
    expect(passages).not.toContain('phases of the moon');
    expect((await refresh(pageDocument)).body.outcome).toBe('unchanged');
  });

  it('keeps the passages of a page that now fails and records why', async () => {
    const before = await documentOf(pageDocument);
    site.setMutableText('');
    const refreshed = await refresh(pageDocument);
    expect(refreshed.body).toMatchObject({ outcome: 'failed', job_id: null });
    expect(refreshed.body.reason).toMatch(/HTTP 404/);
    const after = await documentOf(pageDocument);
    expect(after).toMatchObject({ status: 'completed', chunk_count: before.chunk_count, refresh_outcome: 'failed' });
    expect(after.refresh_error).toMatch(/HTTP 404/);
    expect(await topPassage('solar eclipses')).toContain('solar eclipses');
  });

  it('refreshes only for whoever may change the knowledge base', async () => {
    const answers = await Promise.all([...people.map((token) => refresh(pageDocument, {}, token)), refresh(pageDocument, {}, null)]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 401]);
  });

  it('refuses an uploaded document, a schedule below the minimum and unknown fields', async () => {
    const uploaded = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token: teacher.token,
      body: { documents: [{ text: 'A note typed by the teacher about the moon and its phases.' }] },
    });
    await waitForJob(server, teacher.token, knowledgeBase, uploaded.body.documents[0].job_id);
    const notFromTheWeb = await refresh(uploaded.body.documents[0].document_id);
    expect(notFromTheWeb.status).toBe(400);
    expect(notFromTheWeb.text).toMatch(/added from a web address/);
    const video = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/web-pages`, {
      token: teacher.token,
      body: { url: `${site.origin}/videos/reefs` },
    });
    expect(video.body, video.text).toMatchObject({ kind: 'transcript' });
    await waitForJob(server, teacher.token, knowledgeBase, video.body.job_id);
    const transcript = await refresh(video.body.document_id);
    expect(transcript.status, transcript.text).toBe(400);
    expect(transcript.text).toMatch(/transcript cannot be refreshed/);
    for (const body of [{ every_seconds: 0 }, { every_seconds: 'hourly' }, { every: 60 }]) {
      const refused = await refresh(pageDocument, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await refresh(999_999)).status).toBe(404);
  });

  it(`answers ${AT_ONCE} refreshes sent at once`, async () => {
    site.setMutableText(FIRST_TEXT);
    const settle = await refresh(pageDocument);
    expect(settle.body.outcome).toBe('changed');
    await waitForJob(server, teacher.token, knowledgeBase, settle.body.job_id);
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => refresh(pageDocument)));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: AT_ONCE }, () => 200));
    expect(new Set(answers.map((answer) => answer.body.outcome))).toEqual(new Set(['unchanged']));
  });

  it('refreshes a page on its schedule with nobody asking', async () => {
    const scheduled = await refresh(pageDocument, { every_seconds: 1 });
    expect(scheduled.body).toMatchObject({ outcome: 'unchanged', every_seconds: 1 });
    site.setMutableText('The third version of this page explains the tides, which the moon pulls across the oceans.');
    await expect.poll(async () => (await documentOf(pageDocument)).refresh_outcome, { timeout: 20_000, interval: 100 }).toBe('changed');
    // Indexed again by the job the schedule queued.
    await expect.poll(async () => (await documentOf(pageDocument)).status, { timeout: 20_000, interval: 100 }).toBe('completed');
    expect(await topPassage('tides oceans')).toContain('tides');
    const stopped = await refresh(pageDocument, { every_seconds: null });
    expect(stopped.body.every_seconds).toBeNull();
    expect((await documentOf(pageDocument)).refresh_every_seconds).toBeNull();
  });
});
