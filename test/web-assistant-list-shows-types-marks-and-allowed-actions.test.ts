/**
 * Proves in a real Chromium that /assistants shows each assistant's type badge (Classic,
 * Multi-tool, Calls other assistants) and its Published and Shared marks, narrows by type and search and
 * pages through the API's total with all three kept in the URL, duplicates an assistant, deletes
 * one only after a confirmation naming it (checked through the API), and shows a learner the
 * published assistant with Chat only. The page passes axe-core, fits 375 px, and is screenshot in
 * light and dark.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';

const MULTI_TOOL = { assistant_type: 'multi_tool', connector: 'bypass', llm: 'simple-bypass' };

describe('the assistant list page', () => {
  let server: TestServer;
  let browser: Browser;
  let owner: CreatedUser;
  let learner: CreatedUser;
  let colleague: CreatedUser;
  let newcomer: CreatedUser;
  const ids = { classic: 0, multiTool: 0, orchestrator: 0 };

  async function create(body: Record<string, unknown>): Promise<number> {
    const response = await request(server, 'POST', '/api/assistants', { token: owner.token, body });
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }

  async function listedNames(page: Page): Promise<string[]> {
    await expect.poll(() => page.getByRole('article').count()).toBeGreaterThan(0);
    return page.getByRole('article').getByRole('heading').allInnerTexts();
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    owner = await createUser(server, adminToken, { email: 'owner@merino.test', role: 'creator' });
    learner = await createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner' });
    colleague = await createUser(server, adminToken, { email: 'colleague@merino.test', role: 'creator' });
    // In another organization, so the published assistant is not theirs to see either.
    const elsewhere = await insertOrganization(server.store.db, 'elsewhere', 'Elsewhere');
    newcomer = await createUser(server, adminToken, { email: 'newcomer@merino.test', role: 'creator', organization_id: elsewhere });
    // Older fillers first, so the three that matter are the newest and open the first page.
    for (let index = 1; index <= 9; index += 1) await create({ name: `Filler ${index}`, description: 'Padding for paging' });
    ids.classic = await create({ name: 'Classic tutor', description: 'Explains the course notes' });
    ids.multiTool = await create({ name: 'Tool user', description: 'Searches and calculates', metadata: MULTI_TOOL });
    ids.orchestrator = await create({
      name: 'Conductor',
      description: 'Hands questions to other assistants',
      metadata: { ...MULTI_TOOL, tools: [{ type: 'assistant', enabled: true, config: { assistant_id: ids.multiTool } }] },
    });
    const shared = await request(server, 'PUT', `/api/assistants/${ids.classic}/shares`, {
      token: owner.token,
      body: { user_emails: ['colleague@merino.test'] },
    });
    expect(shared.status, shared.text).toBe(200);
    const published = await request(server, 'PUT', `/api/assistants/${ids.orchestrator}/publish`, {
      token: owner.token,
      body: { published: true },
    });
    expect(published.status, published.text).toBe(200);
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('shows each type badge and mark, and every action the owner is allowed', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    await expectOneHeading(page, 'Assistants');
    expect(await listedNames(page)).toEqual([
      'Conductor',
      'Tool user',
      'Classic tutor',
      ...[9, 8, 7, 6, 5, 4, 3].map((n) => `Filler ${n}`),
    ]);
    const conductor = page.getByRole('article', { name: 'Conductor' });
    await expect.poll(() => conductor.innerText()).toMatch(/Calls other assistants[\s\S]*Published/);
    expect(await page.getByRole('article', { name: 'Tool user' }).innerText()).toContain('Multi-tool');
    const classic = page.getByRole('article', { name: 'Classic tutor' });
    expect(await classic.innerText()).toMatch(/Classic[\s\S]*Shared/);
    expect(await classic.innerText()).not.toContain('Published');
    for (const name of ['Chat with Classic tutor', 'Edit Classic tutor']) expect(await classic.getByRole('link', { name }).count()).toBe(1);
    expect(await classic.getByRole('link', { name: 'Chat with Classic tutor' }).getAttribute('href')).toBe(`/chat/${ids.classic}`);
    expect(await classic.getByRole('link', { name: 'Edit Classic tutor' }).getAttribute('href')).toBe(`/assistants/${ids.classic}`);
    for (const name of ['Duplicate Classic tutor', 'Export Classic tutor', 'Delete Classic tutor']) {
      expect(await classic.getByRole('button', { name }).count()).toBe(1);
    }
    expect(await page.getByRole('link', { name: 'New assistant' }).getAttribute('href')).toBe('/assistants/new');
    await expectAccessible(page);
    await screenshot(page, 'assistant-list-owner-light');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('pages through the total, and filters by type and search, keeping them in the URL', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    await expect.poll(() => page.getByText('Page 1 of 2').count()).toBe(1);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/\/assistants\?page=2$/);
    await expect.poll(() => listedNames(page)).toEqual(['Filler 2', 'Filler 1']);
    expect(await page.getByText('Page 2 of 2').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    await page.getByLabel('Type').selectOption('orchestrator');
    await page.waitForURL(/\/assistants\?type=orchestrator$/);
    await expect.poll(() => listedNames(page)).toEqual(['Conductor']);
    await page.getByLabel('Type').selectOption('classic');
    await expect.poll(() => listedNames(page)).toHaveLength(10);
    await page.getByLabel('Type').selectOption('all');
    await page.getByRole('searchbox', { name: 'Search' }).fill('tutor');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/\/assistants\?q=tutor$/);
    await expect.poll(() => listedNames(page)).toEqual(['Classic tutor']);

    // A bookmark of a filtered page opens the same page.
    await page.goto(`${server.baseUrl}/assistants?type=multi_tool&q=tool`);
    await expect.poll(() => listedNames(page)).toEqual(['Tool user']);
    expect(await page.getByLabel('Type').inputValue()).toBe('multi_tool');
    expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe('tool');
    await page.goto(`${server.baseUrl}/assistants?q=nothing-like-this`);
    await expect.poll(() => page.getByText('No assistant matches these filters.').count()).toBe(1);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('duplicates an assistant, and deletes one only after a confirmation naming it', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    await page.getByRole('button', { name: 'Duplicate Tool user' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Created "Tool user (copy)".' }).count()).toBe(1);
    const copy = page.getByRole('article', { name: 'Tool user (copy)' });
    expect(await copy.innerText()).toContain('Multi-tool');
    const copies = await request(server, 'GET', '/api/assistants?q=copy', { token: owner.token });
    expect(copies.body.items).toHaveLength(1);
    const copyId = copies.body.items[0].id as number;
    expect(copies.body.items[0]).toMatchObject({ name: 'Tool user (copy)', assistant_type: 'multi_tool', published: false });

    await copy.getByRole('button', { name: 'Delete Tool user (copy)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this assistant?' });
    await expect.poll(() => dialog.innerText()).toContain('"Tool user (copy)" will be deleted.');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await request(server, 'GET', `/api/assistants/${copyId}`, { token: owner.token })).status).toBe(200);

    await copy.getByRole('button', { name: 'Delete Tool user (copy)' }).click();
    await dialog.getByRole('button', { name: 'Delete assistant' }).click();
    await expect.poll(() => page.getByRole('article', { name: 'Tool user (copy)' }).count()).toBe(0);
    expect((await request(server, 'GET', `/api/assistants/${copyId}`, { token: owner.token })).status).toBe(404);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a learner the published assistant with Chat only', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, learner.email, learner.password);
    // A learner lands on the chat home; the assistant list is one link away.
    expect(new URL(page.url()).pathname).toBe('/chat');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Assistants' }).click();
    await expect.poll(() => listedNames(page)).toEqual(['Conductor']);
    const conductor = page.getByRole('article', { name: 'Conductor' });
    expect(await conductor.innerText()).toMatch(/Calls other assistants[\s\S]*Published/);
    expect(await conductor.getByRole('link').allInnerTexts()).toEqual(['Chat']);
    expect(await conductor.getByRole('button').count()).toBe(0);
    for (const name of ['New assistant', 'Edit', 'View']) expect(await page.getByRole('link', { name }).count()).toBe(0);
    for (const name of ['Duplicate', 'Export', 'Delete']) expect(await page.getByRole('button', { name }).count()).toBe(0);
    expect(await page.getByText('Import an assistant').count()).toBe(0);
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a creator it is shared with "Shared with you", View instead of Edit, and no Delete', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, colleague.email, colleague.password);
    await expect.poll(() => listedNames(page)).toEqual(['Conductor', 'Classic tutor']);
    const classic = page.getByRole('article', { name: 'Classic tutor' });
    expect(await classic.innerText()).toContain('Shared with you');
    expect(await classic.getByRole('link').allInnerTexts()).toEqual(['Chat', 'View']);
    expect(await classic.getByRole('link', { name: 'View Classic tutor' }).getAttribute('href')).toBe(`/assistants/${ids.classic}`);
    expect(await classic.getByRole('button').allInnerTexts()).toEqual(['Duplicate', 'Export']);
    expect(await page.getByRole('article', { name: 'Conductor' }).getByRole('button').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a creator of another organization, who has none, the empty state with New assistant and import', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, newcomer.email, newcomer.password);
    await expect.poll(() => page.getByText('There are no assistants yet.').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'New assistant' }).count()).toBe(1);
    expect(await page.getByText('Import an assistant').count()).toBe(1);
    expect(await page.getByRole('article').count()).toBe(0);
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('fits a 375 px phone and reads well in dark mode', async () => {
    for (const [name, options] of [
      ['assistant-list-owner-phone', { width: 375 }],
      ['assistant-list-owner-dark', { colorScheme: 'dark' }],
    ] as const) {
      const { context, page, pageErrors } = await openPage(browser, options);
      await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
      await expect.poll(() => listedNames(page)).toHaveLength(10);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, name);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
  });

  it('reaches every action with the keyboard, with a visible focus ring', async () => {
    const { context, page } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    await expect.poll(() => listedNames(page)).toHaveLength(10);
    await page.getByRole('link', { name: 'Chat with Conductor' }).focus();
    await page.keyboard.press('Tab');
    // Strings, not functions: they run in the page, and the server's TypeScript program has no DOM types.
    const focused = await page.evaluate<{ label: string | null; outline: string }>(
      '({ label: document.activeElement.getAttribute("aria-label"), outline: getComputedStyle(document.activeElement).outlineStyle })',
    );
    expect(focused).toEqual({ label: 'Edit Conductor', outline: 'solid' });
    await context.close();
  });
});
