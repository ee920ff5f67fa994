/**
 * The knowledge-base page's web controls, in headless Chromium against a fake web site: a teacher
 * ticks "Follow links on the same site", and the page and the pages it links to on the same site
 * appear as documents while the page says, in a live region, how many were added and which were
 * skipped with their reasons; a link depth past WEB_CRAWL_DEPTH_MAX is refused at its field. A
 * teacher refreshes a page whose content changed and reads "changed, re-indexing" (and
 * "unchanged" before it changed), and sets "Refresh automatically" to weekly. At 375 px with an axe
 * scan, then at 1280 px; screenshots of both widths go to reports/screenshots/.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const PASSWORD = 'teacher-password-for-tests';
const WEEK_SECONDS = 7 * 86_400;

describe('the knowledge-base page follows same-site links and refreshes web pages', () => {
  let site: FakeWebSite;
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let knowledgeBase: number;

  const documents = async (): Promise<any[]> =>
    (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token: teacher.token })).body.items;

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: 262_144 });
    server = await startTestServer('sqlite', {
      environment: {
        INGESTION_POLL_MS: '20',
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        WEB_PAGE_MAX_BYTES: '65536',
        WEB_PAGE_TIMEOUT_MS: '1500',
        WEB_CRAWL_DEPTH_MAX: '3',
        WEB_CRAWL_PAGES_MAX: '30',
      },
    });
    browser = await launchBrowser();
    teacher = await createUser(server, await loginAsAdmin(server), {
      email: 'web-teacher@merino.test',
      role: 'creator',
      password: PASSWORD,
    });
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Biology pages' } })).body
      .id;
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(site)?.close();
  });

  it('adds the pages a page links to on its site, refreshes a changed page and sets its schedule, at 375 px', async () => {
    const { page, context, pageErrors } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, server.baseUrl, teacher.email, PASSWORD);
    await page.goto(`${server.baseUrl}/knowledge-bases/${knowledgeBase}`);

    // Following links: a depth past the setting is refused at its field, naming the limit.
    await page.getByLabel('Web page address').fill(`${site.origin}/course/`);
    await page.getByRole('checkbox', { name: 'Follow links on the same site' }).check();
    await page.getByRole('spinbutton', { name: 'Link depth' }).fill('4');
    await page.getByRole('button', { name: 'Add the pages' }).click();
    await page.getByText(/depth may be at most 3 \(WEB_CRAWL_DEPTH_MAX\)/).waitFor();
    await page.getByRole('spinbutton', { name: 'Link depth' }).fill('3');
    await page.getByRole('spinbutton', { name: 'Pages at most' }).fill('20');
    await page.getByRole('button', { name: 'Add the pages' }).click();
    const progress = page.getByRole('status').filter({ hasText: 'and its links' });
    await expect
      .poll(async () => progress.innerText(), { timeout: 30_000 })
      .toContain(`Finished reading ${site.origin}/course/ and its links: 4 pages added, 5 skipped or failed.`);
    await expect.poll(async () => progress.innerText()).toMatch(/\/members\/grades: .*asks robots not to read this page/);
    const crawled = await documents();
    expect(crawled.map((document) => new URL(document.source_url).pathname).sort()).toEqual([
      '/course/',
      '/course/cells',
      '/course/evolution',
      '/course/genetics',
    ]);
    const table = page.getByRole('table', { name: 'Documents' });
    for (const document of crawled) await table.getByRole('link', { name: document.source_url, exact: true }).waitFor();

    // Refreshing: one page added alone, read again unchanged, then after the site changed it.
    site.setMutableText('The first version of this page explains the phases of the moon, from new moon to full moon.');
    await page.getByRole('checkbox', { name: 'Follow links on the same site' }).uncheck();
    await page.getByLabel('Web page address').fill(`${site.origin}/mutable`);
    await page.getByRole('button', { name: 'Add web page' }).click();
    await expect.poll(async () => (await documents()).length, { timeout: 20_000 }).toBe(5);
    const mutable = (await documents()).find((document) => document.source_url === `${site.origin}/mutable`);
    const jobs = (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs`, { token: teacher.token })).body.items;
    for (const job of jobs) await waitForJob(server, teacher.token, knowledgeBase, job.id);
    const refreshButton = page.getByRole('button', { name: `Refresh ${mutable.file_name}`, exact: true });
    await refreshButton.click();
    const row = table.getByRole('row').filter({ has: refreshButton });
    await expect.poll(async () => row.getByRole('status').innerText()).toBe('Checked: unchanged.');
    site.setMutableText('The second version of this page explains solar eclipses, when the moon hides the sun from the earth.');
    await refreshButton.click();
    await expect.poll(async () => row.getByRole('status').innerText()).toBe('Checked: changed, re-indexing.');
    await row.getByText(/^Last checked /).waitFor();

    // The schedule, once the re-indexing has finished (a page being indexed is not read again).
    for (const job of (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs`, { token: teacher.token })).body.items)
      await waitForJob(server, teacher.token, knowledgeBase, job.id);
    await page.getByRole('combobox', { name: `Refresh ${mutable.file_name} automatically` }).selectOption('weekly');
    await expect
      .poll(async () => (await documents()).find((document) => document.id === mutable.id).refresh_every_seconds)
      .toBe(WEEK_SECONDS);
    await expect.poll(async () => row.getByRole('status').innerText()).toBe('Checked: unchanged.');

    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'knowledge-base-web-pages-375');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'knowledge-base-web-pages-1280');
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
