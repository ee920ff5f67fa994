/**
 * Proves in a real Chromium that a teacher adds a YouTube video's captions to a knowledge base on
 * its page by typing the video's address into "Web page address": the transcript's row follows its
 * indexing to the end and the "Documents" table lists it; a video without captions in the language
 * shows the reason under the field and adds nothing. The page passes axe-core and fits at 375 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeYoutube, type FakeYoutube } from './fakes/fake-youtube-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

describe('adding a video on the knowledge base page', () => {
  let youtube: FakeYoutube;
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let knowledgeBaseId: number;

  beforeAll(async () => {
    youtube = await startFakeYoutube({ hugeBytes: 1_024 });
    server = await startTestServer('sqlite', {
      environment: { INGESTION_POLL_MS: '20', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', YOUTUBE_BASE_URL: youtube.origin },
    });
    browser = await launchBrowser();
    teacher = await createUser(server, await loginAsAdmin(server), { email: 'web-videos@merino.test', role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Earth science' } });
    expect(created.status, created.text).toBe(201);
    knowledgeBaseId = created.body.id;
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(youtube)?.close();
  });

  it("adds a YouTube video's captions by its address and shows why another is refused", async () => {
    const { page, context, pageErrors } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/knowledge-bases/${knowledgeBaseId}`);
    const address = page.getByRole('textbox', { name: 'Web page address' });
    await page.getByText('a YouTube address', { exact: false }).waitFor();

    await address.fill('https://www.youtube.com/watch?v=nocaptions1');
    await page.getByRole('button', { name: 'Add web page' }).click();
    await page.getByText('This video has no captions', { exact: false }).waitFor();
    expect(await address.getAttribute('aria-invalid')).toBe('true');

    await address.fill('https://youtu.be/tectonics01');
    await page.getByRole('button', { name: 'Add web page' }).click();
    const progress = page.getByRole('progressbar', { name: 'Indexing Plate tectonics in ten minutes (captions: English)' });
    await progress.waitFor();
    await expect.poll(() => progress.getAttribute('aria-valuenow'), { timeout: 15_000 }).toBe('100');
    expect(await address.inputValue()).toBe('');
    const table = page.getByRole('table', { name: 'Documents' });
    await table.getByText('Plate-tectonics-in-ten-minutes-captions-English.vtt').waitFor();
    expect(await table.getByRole('row').count()).toBe(2);

    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'knowledge-base-video-added');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
