/**
 * Proves in a real Chromium that an assistant can be created with the keyboard alone: from
 * /assistants/new, only Tab, Space, Enter, arrow keys and typing choose "Classic", fill the form,
 * insert {context} at the cursor, pick the retrieval and a knowledge base, and press "Save"; the
 * focused controls show a visible focus ring, and the API holds the saved assistant.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { launchBrowser, logInThroughPage, openPage } from './support/browser.js';
import { isFocused, focusRingWidth } from './support/page-checks.js';

const TAB_LIMIT = 60;

/** Presses Tab until `target` has focus (failing after TAB_LIMIT presses), as a keyboard user would. */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let presses = 0; presses < TAB_LIMIT; presses += 1) {
    if (await isFocused(target)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

describe('creating an assistant with the keyboard only', () => {
  let server: TestServer;
  let browser: Browser;
  let creator: CreatedUser;
  let knowledgeBaseId: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    creator = await createUser(server, await loginAsAdmin(server), { email: 'keyboard@school.test', role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: creator.token, body: { name: 'Chemistry notes' } });
    knowledgeBaseId = String(created.body.id);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('reaches a saved classic assistant without a click', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    await page.goto(`${server.baseUrl}/assistants/new`);
    const classic = page.getByRole('radio', { name: 'Classic' });
    await classic.waitFor();

    await tabTo(page, classic);
    expect(await focusRingWidth(classic)).toBeGreaterThan(0);
    await page.keyboard.press('Space');
    expect(await classic.isChecked()).toBe(true);

    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await tabTo(page, name);
    await page.keyboard.type('Keyboard chemistry');
    await tabTo(page, page.getByRole('textbox', { name: 'System prompt', exact: true }));
    await page.keyboard.type('You explain chemistry step by step.');
    const template = page.getByRole('textbox', { name: 'Prompt template', exact: true });
    await tabTo(page, template);
    await page.keyboard.type('Question: {user_input} Sources: ');
    const insertContext = page.getByRole('button', { name: 'Insert {context}' });
    await tabTo(page, insertContext);
    expect(await focusRingWidth(insertContext)).toBeGreaterThan(0);
    await page.keyboard.press('Enter');
    expect(await template.inputValue()).toBe('Question: {user_input} Sources: {context}');
    expect(await isFocused(template)).toBe(true);

    const processor = page.getByRole('combobox', { name: 'Knowledge source' });
    await tabTo(page, processor);
    for (let presses = 0; presses < 10 && (await processor.inputValue()) !== 'simple_rag'; presses += 1)
      await page.keyboard.press('ArrowDown');
    expect(await processor.inputValue()).toBe('simple_rag');
    const notes = page.getByRole('checkbox', { name: 'Chemistry notes' });
    await tabTo(page, notes);
    await page.keyboard.press('Space');
    expect(await notes.isChecked()).toBe(true);

    const save = page.getByRole('button', { name: 'Save', exact: true });
    await tabTo(page, save);
    expect(await focusRingWidth(save)).toBeGreaterThan(0);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = await request(server, 'GET', `/api/assistants/${id}`, { token: creator.token });
    expect(stored.body).toMatchObject({
      name: 'Keyboard chemistry',
      system_prompt: 'You explain chemistry step by step.',
      prompt_template: 'Question: {user_input} Sources: {context}',
      assistant_type: 'classic',
      rag_collections: [knowledgeBaseId],
      metadata: { rag_processor: 'simple_rag' },
    });
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
