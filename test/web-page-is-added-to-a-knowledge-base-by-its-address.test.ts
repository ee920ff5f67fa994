/**
 * Proves in a real Chromium that a teacher adds a web page to a knowledge base on its page by
 * typing its address into "Web page address": the page's row follows its indexing to the end and
 * the "Documents" table lists it; a page the server refuses (here one robots.txt forbids) shows the
 * reason under the field and adds nothing. The page passes axe-core and fits at 375 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

describe('adding a web page on the knowledge base page', () => {
  let site: FakeWebSite;
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let knowledgeBaseId: number;

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: 1_024 });
    server = await startTestServer('sqlite', { environment: { INGESTION_POLL_MS: '20', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' } });
    browser = await launchBrowser();
    teacher = await createUser(server, await loginAsAdmin(server), { email: 'web-pages@merino.test', role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Biology reading' } });
    expect(created.status, created.text).toBe(201);
    knowledgeBaseId = created.body.id;
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(site)?.close();
  });

  it('adds a page by its address and shows why another is refused', async () => {
    const { page, context, pageErrors } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/knowledge-bases/${knowledgeBaseId}`);
    const address = page.getByRole('textbox', { name: 'Web page address' });

    await address.fill(`${site.origin}/members/grades`);
    await page.getByRole('button', { name: 'Add web page' }).click();
    await page.getByText('asks robots not to read this page', { exact: false }).waitFor();
    expect(await address.getAttribute('aria-invalid')).toBe('true');

    await address.fill(`${site.origin}/articles/water-cycle`);
    await page.getByRole('button', { name: 'Add web page' }).click();
    const progress = page.getByRole('progressbar', { name: 'Indexing The water cycle – Open Science Notes' });
    await progress.waitFor();
    await expect.poll(() => progress.getAttribute('aria-valuenow'), { timeout: 15_000 }).toBe('100');
    expect(await address.inputValue()).toBe('');
    const table = page.getByRole('table', { name: 'Documents' });
    await table.getByText('The-water-cycle-Open-Science-Notes.md').waitFor();
    expect(await table.getByRole('row').count()).toBe(2);

    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'knowledge-base-web-page-added');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    await screenshot(page, 'knowledge-base-web-page-added-wide');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
