/**
 * Proves in a real Chromium that /files uploads a single file through the file input labelled
 * "Upload a file", lists it (and pages through more files than one page holds), previews its text
 * as text, shows which assistant uses it, and that Delete on a file in use opens a warning that
 * names the assistant: Cancel keeps the file, confirming deletes it (with force=true, checked
 * through the API); an unused file is deleted after a plain confirmation. A learner is told the
 * page is not theirs and sees no controls. Passes axe-core and fits at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import {
  expectAccessible,
  expectOneHeading,
  launchBrowser,
  logInThroughPage,
  openPage,
  screenshot,
  type OpenedPage,
} from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { uploadFile } from './support/upload-file.js';

const GUIDE = '# Essay guide\n\nState a thesis, then <b>argue</b> it in three paragraphs.';

describe('the files page', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let learner: CreatedUser;

  function listedNames(page: Page): Promise<string[]> {
    return page.getByRole('article').getByRole('heading').allInnerTexts();
  }

  async function fileNamesOf(user: CreatedUser): Promise<string[]> {
    const response = await request(server, 'GET', '/api/files?limit=100', { token: user.token });
    expect(response.status, response.text).toBe(200);
    return (response.body.items as { name: string }[]).map((item) => item.name);
  }

  async function openFiles(page: Page, user: CreatedUser): Promise<void> {
    await logInThroughPage(page, server.baseUrl, user.email, user.password);
    await page.goto(`${server.baseUrl}/files`);
    await expectOneHeading(page, 'Files');
  }

  async function teacherOnFiles(): Promise<OpenedPage> {
    const opened = await openPage(browser);
    await openFiles(opened.page, teacher);
    return opened;
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: 'teacher@merino.test', role: 'creator' });
    learner = await createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner' });
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('uploads a file, previews its text, shows the assistant using it, and deletes it only after a warning naming that assistant', async () => {
    const { context, page, pageErrors } = await teacherOnFiles();
    await page.getByLabel('Upload a file').setInputFiles({ name: 'essay-guide.md', mimeType: 'text/markdown', buffer: Buffer.from(GUIDE) });
    await page.getByText('essay-guide.md was uploaded.').waitFor();
    await expect.poll(() => listedNames(page)).toEqual(['essay-guide.md']);
    const item = page.getByRole('article', { name: 'essay-guide.md' });
    await item.getByText('No assistant uses it.').waitFor();

    const preview = item.getByRole('button', { name: 'Preview essay-guide.md' });
    await preview.click();
    const text = item.getByRole('region', { name: 'Text of essay-guide.md' });
    await expect.poll(() => text.innerText()).toBe(GUIDE);
    expect(await text.locator('b').count()).toBe(0);
    expect(await item.getByRole('button', { name: 'Hide preview of essay-guide.md' }).getAttribute('aria-expanded')).toBe('true');

    const files = await request(server, 'GET', '/api/files', { token: teacher.token });
    const filePath = files.body.items[0].file_path as string;
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: { name: 'Essay coach', metadata: { rag_processor: 'single_file_rag', file_path: filePath } },
    });
    expect(assistant.status, assistant.text).toBe(201);
    await page.reload();
    await item.getByText('Used by:').waitFor();
    expect(await item.getByRole('link', { name: 'Essay coach' }).getAttribute('href')).toBe(`/assistants/${assistant.body.id}`);
    await expectAccessible(page);

    await item.getByRole('button', { name: 'Delete essay-guide.md' }).click();
    const warning = page.getByRole('dialog', { name: 'This file is in use' });
    await warning.waitFor();
    expect(await warning.innerText()).toContain('“Essay coach”');
    await expectAccessible(page);
    await screenshot(page, 'files-in-use-warning-1280');
    await warning.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => warning.isVisible()).toBe(false);
    expect(await fileNamesOf(teacher)).toContain('essay-guide.md');

    await item.getByRole('button', { name: 'Delete essay-guide.md' }).click();
    await warning.getByRole('button', { name: 'Delete it anyway' }).click();
    await page.getByText('essay-guide.md was deleted.').waitFor();
    await expect.poll(() => listedNames(page)).toEqual([]);
    expect(await fileNamesOf(teacher)).not.toContain('essay-guide.md');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('deletes an unused file after a plain confirmation, and shows its refusal reason for a file it cannot take', async () => {
    await uploadFile(server, teacher.token, 'spare.txt', 'nothing uses this');
    const { context, page, pageErrors } = await teacherOnFiles();
    await expect.poll(() => listedNames(page)).toContain('spare.txt');
    await page
      .getByLabel('Upload a file')
      .setInputFiles({ name: 'picture.md', mimeType: 'text/markdown', buffer: Buffer.from([0, 1, 2, 255]) });
    await page.getByRole('alert').filter({ hasText: 'picture.md could not be uploaded' }).waitFor();

    await page.getByRole('button', { name: 'Delete spare.txt' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this file?' });
    await confirm.getByRole('button', { name: 'Delete file' }).click();
    await expect.poll(() => listedNames(page)).not.toContain('spare.txt');
    expect(await fileNamesOf(teacher)).not.toContain('spare.txt');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('pages through more files than one page holds', async () => {
    for (let index = 1; index <= 22; index += 1) await uploadFile(server, teacher.token, `note-${index}.txt`, `Note ${index}`);
    const { context, page, pageErrors } = await teacherOnFiles();
    await expect.poll(() => listedNames(page)).toHaveLength(20);
    expect(await listedNames(page)).toContain('note-22.txt');
    const pager = page.getByRole('navigation', { name: 'Pages of files' });
    await pager.getByText('Page 1 of 2').waitFor();
    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    await expect.poll(() => listedNames(page)).toEqual(['note-2.txt', 'note-1.txt']);
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => listedNames(page)).toHaveLength(20);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('tells a learner the page is not theirs, with no controls and no menu link', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, learner.email, learner.password);
    expect(await page.getByRole('link', { name: 'Files' }).count()).toBe(0);
    await page.goto(`${server.baseUrl}/files`);
    await expectOneHeading(page, 'Files');
    await page.getByText('Your account cannot manage them.').waitFor();
    expect(await page.getByLabel('Upload a file').count()).toBe(0);
    expect(await page.getByRole('article').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('passes axe-core and fits at 1280 and 375 px, with a preview open', async () => {
    await uploadFile(
      server,
      teacher.token,
      'rubric-notes.md',
      `# Rubric notes\n\n${'A long line of notes that must wrap on a phone. '.repeat(12)}`,
    );
    for (const width of [1280, 375]) {
      const { context, page, pageErrors } = await openPage(browser, { width });
      await openFiles(page, teacher);
      await expect.poll(() => listedNames(page)).toContain('rubric-notes.md');
      await page.getByRole('button', { name: 'Preview rubric-notes.md' }).click();
      await page.getByRole('region', { name: 'Text of rubric-notes.md' }).waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `files-page-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
  });
});
