/**
 * Proves in a real Chromium that /knowledge-bases lists a teacher's own knowledge bases and the
 * ones their organization shares, with document and chunk counts; that the "New knowledge base"
 * dialog opens on its name field, closes with Escape, and creates one (shared when asked, checked
 * through the API); that Delete asks first (Cancel keeps it, confirming deletes it); that the
 * studio's empty knowledge-base picker links here; and that a learner has no menu link and is told
 * the page is not theirs, with nothing listed. Passes axe-core and fits at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow, isFocused } from './support/page-checks.js';

describe('the knowledge base list page', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let outsider: CreatedUser;

  async function createKnowledgeBase(user: CreatedUser, body: Record<string, unknown>): Promise<number> {
    const response = await request(server, 'POST', '/api/knowledge-bases', { token: user.token, body });
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }

  async function namesOf(user: CreatedUser): Promise<string[]> {
    const response = await request(server, 'GET', '/api/knowledge-bases', { token: user.token });
    expect(response.status, response.text).toBe(200);
    return (response.body.items as { name: string }[]).map((item) => item.name);
  }

  function listedNames(page: Page): Promise<string[]> {
    return page.getByRole('article').getByRole('heading').allInnerTexts();
  }

  async function openList(page: Page, user: CreatedUser): Promise<void> {
    await logInThroughPage(page, server.baseUrl, user.email, user.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Knowledge bases' }).click();
    await expectOneHeading(page, 'Knowledge bases');
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: 'teacher@merino.test', role: 'creator' });
    colleague = await createUser(server, adminToken, { email: 'colleague@merino.test', role: 'creator' });
    learner = await createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner' });
    const elsewhere = await insertOrganization(server.store.db, 'elsewhere', 'Elsewhere');
    outsider = await createUser(server, adminToken, { email: 'outsider@merino.test', role: 'creator', organization_id: elsewhere });
    await createKnowledgeBase(teacher, { name: 'Cell biology notes', description: 'Lecture notes for weeks 1 to 4' });
    const shared = await createKnowledgeBase(colleague, { name: 'Department glossary', description: 'Shared terms' });
    const patched = await request(server, 'PATCH', `/api/knowledge-bases/${shared}`, {
      token: colleague.token,
      body: { visibility: 'organization' },
    });
    expect(patched.status, patched.text).toBe(200);
    await createKnowledgeBase(colleague, { name: 'Colleague private drafts' });
    await createKnowledgeBase(outsider, { name: 'Another school' });
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('lists mine and the organization’s shared one with counts, and Delete only on mine', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openList(page, teacher);
    await expect.poll(() => listedNames(page)).toEqual(expect.arrayContaining(['Cell biology notes', 'Department glossary']));
    const names = await listedNames(page);
    expect(names).not.toContain('Colleague private drafts');
    expect(names).not.toContain('Another school');
    const mine = page.getByRole('article', { name: 'Cell biology notes' });
    await expect.poll(() => mine.innerText()).toContain('0 documents');
    expect(await mine.innerText()).toContain('0 chunks');
    expect(await mine.getByRole('link', { name: 'Cell biology notes' }).getAttribute('href')).toMatch(/^\/knowledge-bases\/\d+$/);
    expect(await mine.getByRole('button', { name: 'Delete Cell biology notes' }).count()).toBe(1);
    const theirs = page.getByRole('article', { name: 'Department glossary' });
    expect(await theirs.innerText()).toContain('Shared with the organization');
    expect(await theirs.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('creates one through the dialog, opened on its name, closed by Escape, shared when asked', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openList(page, teacher);
    const newButton = page.getByRole('button', { name: 'New knowledge base' });
    await newButton.click();
    const dialog = page.getByRole('dialog', { name: 'New knowledge base' });
    await expect.poll(() => isFocused(dialog.getByLabel('Name'))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);

    await newButton.click();
    await expect.poll(() => isFocused(dialog.getByLabel('Name'))).toBe(true);
    await page.keyboard.type('Genetics readings');
    await dialog.getByLabel('Description').fill('Chapters 5 to 7');
    await dialog.getByLabel('Language', { exact: true }).selectOption('ca');
    await dialog.getByLabel('Share with my organization').check();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => listedNames(page)).toContain('Genetics readings');
    expect(await page.getByRole('article', { name: 'Genetics readings' }).innerText()).toContain('Shared with the organization');
    // Shared, so the colleague's API list holds it too.
    expect(await namesOf(colleague)).toContain('Genetics readings');
    const listed = await request(server, 'GET', '/api/knowledge-bases?q=Genetics', { token: teacher.token });
    expect(listed.body.items[0].language).toBe('ca');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('deletes only after a confirmation: Cancel keeps it, confirming removes it', async () => {
    await createKnowledgeBase(teacher, { name: 'Old worksheets' });
    const { context, page, pageErrors } = await openPage(browser);
    await openList(page, teacher);
    await expect.poll(() => listedNames(page)).toContain('Old worksheets');
    const deleteButton = page.getByRole('button', { name: 'Delete Old worksheets' });
    await deleteButton.click();
    const confirm = page.getByRole('dialog', { name: 'Delete this knowledge base?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => confirm.isVisible()).toBe(false);
    expect(await namesOf(teacher)).toContain('Old worksheets');

    await deleteButton.click();
    await confirm.getByRole('button', { name: 'Delete knowledge base' }).click();
    await expect.poll(() => listedNames(page)).not.toContain('Old worksheets');
    expect(await namesOf(teacher)).not.toContain('Old worksheets');
    expect(await listedNames(page)).toContain('Cell biology notes');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a colleague the shared one, and a learner neither a menu link nor a list', async () => {
    const colleaguePage = await openPage(browser);
    await openList(colleaguePage.page, colleague);
    await expect.poll(() => listedNames(colleaguePage.page)).toContain('Department glossary');
    expect(await listedNames(colleaguePage.page)).toContain('Colleague private drafts');
    expect(await listedNames(colleaguePage.page)).not.toContain('Cell biology notes');
    await colleaguePage.context.close();

    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, learner.email, learner.password);
    expect(await page.getByRole('link', { name: 'Knowledge bases' }).count()).toBe(0);
    await page.goto(`${server.baseUrl}/knowledge-bases`);
    await expectOneHeading(page, 'Knowledge bases');
    await page.getByText('Your account cannot manage them.').waitFor();
    expect(await page.getByRole('article').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New knowledge base' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'knowledge-base-list-learner');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('links the studio’s empty knowledge-base picker here', async () => {
    const { context, page } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, outsider.email, outsider.password);
    await request(server, 'DELETE', `/api/knowledge-bases/${(await listIds(outsider))[0]}`, { token: outsider.token });
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('simple_rag');
    const link = page.getByRole('link', { name: /Make one on the knowledge bases page/ }).first();
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('/knowledge-bases');
    await context.close();
  });

  async function listIds(user: CreatedUser): Promise<number[]> {
    const response = await request(server, 'GET', '/api/knowledge-bases', { token: user.token });
    return (response.body.items as { id: number }[]).map((item) => item.id);
  }

  it('passes axe-core and fits at 1280 and 375 px', async () => {
    for (const width of [1280, 375]) {
      const { context, page, pageErrors } = await openPage(browser, { width });
      await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
      await page.goto(`${server.baseUrl}/knowledge-bases`);
      await expect.poll(() => listedNames(page)).toContain('Cell biology notes');
      await screenshot(page, `knowledge-base-list-${width}`);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await page.getByRole('button', { name: 'New knowledge base' }).click();
      await page.getByRole('dialog', { name: 'New knowledge base' }).waitFor();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `knowledge-base-list-dialog-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
  });
});
