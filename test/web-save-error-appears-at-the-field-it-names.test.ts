/**
 * Proves in a real Chromium that when the server refuses a save, the message shows at the field
 * it names: the field is aria-invalid and described by the server's message, a notice at the top
 * says fields need attention, focus moves to that field, and nothing is saved. Covered: a name of
 * 201 characters on /assistants/new (no assistant is created) and a top-k of 500 on an existing
 * classic assistant's page (the stored one keeps its top-k).
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { request, type TestServer } from './support/test-server.js';
import { expectAccessible, screenshot } from './support/browser.js';
import { creatorsPage, creatorStudioSuite } from './support/studio-suite.js';
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
  const studio = creatorStudioSuite('teacher@school.test');

  it('shows a too-long name at "Name" and creates nothing', async () => {
    const { context, page, pageErrors } = await creatorsPage(studio);
    const before = await assistantCount(studio.server, studio.creator.token);
    await page.goto(`${studio.server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await name.fill('n'.repeat(201));
    await page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('Be kind.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectErrorAt(page, name, /must NOT have more than 200 characters/);
    expect(new URL(page.url()).pathname).toBe('/assistants/new');
    expect(await assistantCount(studio.server, studio.creator.token)).toBe(before);
    await expectAccessible(page);
    await screenshot(page, 'assistant-new-save-error-1280-light');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a refused top-k at its field on the edit page and leaves the stored assistant as it was', async () => {
    const knowledgeBase = await request(studio.server, 'POST', '/api/knowledge-bases', {
      token: studio.creator.token,
      body: { name: 'Notes' },
    });
    const created = await request(studio.server, 'POST', '/api/assistants', {
      token: studio.creator.token,
      body: {
        name: 'Stable',
        prompt_template: '{context} {user_input}',
        rag_collections: [String(knowledgeBase.body.id)],
        rag_top_k: 4,
        metadata: { rag_processor: 'simple_rag', connector: 'openai', llm: 'gpt-4o-mini', prompt_processor: 'simple_augment' },
      },
    });
    expect(created.status).toBe(201);
    const { context, page, pageErrors } = await creatorsPage(studio, { width: 375, colorScheme: 'dark' });
    await page.goto(`${studio.server.baseUrl}/assistants/${created.body.id}`);
    const topK = page.getByRole('spinbutton', { name: 'Passages to retrieve (top k)' });
    await topK.fill('500');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Changed name');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectErrorAt(page, topK, /rag_top_k/);
    const stored = await request(studio.server, 'GET', `/api/assistants/${created.body.id}`, { token: studio.creator.token });
    expect(stored.body).toMatchObject({ name: 'Stable', rag_top_k: 4 });
    await expectAccessible(page);
    await screenshot(page, 'assistant-edit-save-error-375-dark');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
