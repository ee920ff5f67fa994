/**
 * Proves in a real Chromium that when the server refuses a save, the message shows at the field
 * it names: the field is aria-invalid and described by the server's message, a notice at the top
 * says fields need attention, focus moves to that field, and nothing is saved. Covered: a name of
 * 201 characters on /assistants/new (no assistant is created) and a top-k of 500 on an existing
 * classic assistant's page (the stored one keeps its top-k).
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { isFocused } from './support/page-checks.js';

/** The field is marked invalid and one of the elements describing it says `message`. */
async function expectErrorAt(page: Page, field: Locator, message: RegExp): Promise<void> {
  await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  const descriptions = await Promise.all(describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).innerText()));
  expect(descriptions.join(' ')).toMatch(message);
  expect(await isFocused(field)).toBe(true);
  expect(await page.getByText('Some fields need attention').count()).toBe(1);
}

async function assistantCount(server: TestServer, token: string): Promise<number> {
  return (await request(server, 'GET', '/api/assistants', { token })).body.total as number;
}

describe('save errors in the assistant form', () => {
  let server: TestServer;
  let browser: Browser;
  let creator: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    creator = await createUser(server, await loginAsAdmin(server), { email: 'teacher@school.test', role: 'creator' });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('shows a too-long name at "Name" and creates nothing', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    const before = await assistantCount(server, creator.token);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await name.fill('n'.repeat(201));
    await page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('Be kind.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectErrorAt(page, name, /must NOT have more than 200 characters/);
    expect(new URL(page.url()).pathname).toBe('/assistants/new');
    expect(await assistantCount(server, creator.token)).toBe(before);
    await expectAccessible(page);
    await screenshot(page, 'assistant-new-save-error-1280-light');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a refused top-k at its field on the edit page and leaves the stored assistant as it was', async () => {
    const knowledgeBase = await request(server, 'POST', '/api/knowledge-bases', { token: creator.token, body: { name: 'Notes' } });
    const created = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: {
        name: 'Stable',
        prompt_template: '{context} {user_input}',
        rag_collections: [String(knowledgeBase.body.id)],
        rag_top_k: 4,
        metadata: { rag_processor: 'simple_rag', connector: 'openai', llm: 'gpt-4o-mini', prompt_processor: 'simple_augment' },
      },
    });
    expect(created.status).toBe(201);
    const { context, page, pageErrors } = await openPage(browser, { width: 375, colorScheme: 'dark' });
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    await page.goto(`${server.baseUrl}/assistants/${created.body.id}`);
    const topK = page.getByRole('spinbutton', { name: 'Passages to retrieve (top k)' });
    await topK.fill('500');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Changed name');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectErrorAt(page, topK, /rag_top_k/);
    const stored = await request(server, 'GET', `/api/assistants/${created.body.id}`, { token: creator.token });
    expect(stored.body).toMatchObject({ name: 'Stable', rag_top_k: 4 });
    await expectAccessible(page);
    await screenshot(page, 'assistant-edit-save-error-375-dark');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
