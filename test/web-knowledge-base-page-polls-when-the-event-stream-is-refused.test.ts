/**
 * Proves in a real Chromium that the knowledge base page falls back to reading the job list when
 * the live job event stream cannot be held: with JOB_EVENT_STREAMS_PER_USER_MAX at 1 and that one
 * stream already open for the teacher, the page's own stream is refused (429), the page says it
 * checks every few seconds, and an uploaded file's progress still reaches completion without a
 * reload, with the "Documents" table filling in.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobEvents, type JobEventStream } from './support/job-event-stream.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { launchBrowser, logInThroughPage, openPage } from './support/browser.js';

describe('the knowledge base page without its event stream', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let knowledgeBaseId: number;
  let heldStream: JobEventStream;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { environment: { JOB_EVENT_STREAMS_PER_USER_MAX: '1', INGESTION_POLL_MS: '50' } });
    browser = await launchBrowser();
    teacher = await createUser(server, await loginAsAdmin(server), { email: 'teacher@merino.test', role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Chemistry notes' } });
    expect(created.status, created.text).toBe(201);
    knowledgeBaseId = created.body.id as number;
    heldStream = await openJobEvents(server, teacher.token, `/api/knowledge-bases/${knowledgeBaseId}/jobs/events`);
    expect(heldStream.status).toBe(200);
  });

  afterAll(async () => {
    heldStream.close();
    await browser.close();
    await server.close();
  });

  it('polls the job list and still shows the upload to completion', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/knowledge-bases/${knowledgeBaseId}`);
    await page.getByText('Live progress is not available').waitFor();
    await page
      .getByLabel('Upload documents')
      .setInputFiles([{ name: 'acids.md', mimeType: 'text/markdown', buffer: Buffer.from('# Acids\n\nAcids turn litmus paper red.\n') }]);
    const jobBar = page.getByRole('progressbar', { name: 'Indexing acids.md' });
    await expect.poll(() => jobBar.getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
    await expect.poll(() => page.getByRole('listitem', { name: 'acids.md' }).innerText(), { timeout: 10_000 }).toMatch(/Done: 1 chunk/);
    await expect
      .poll(() => page.getByRole('table', { name: 'Documents' }).getByRole('rowheader').allInnerTexts(), { timeout: 10_000 })
      .toEqual(['acids.md']);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
