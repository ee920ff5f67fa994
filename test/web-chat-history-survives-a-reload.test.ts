/**
 * A conversation is kept: its address becomes /chat/{assistant}/{chat} on the first message
 * without a reload; a reload, a copied link in a fresh tab and the back button all bring the same
 * messages back; the sidebar "Chats" renames a chat and deletes it after a confirmation.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptChatPath, sendMessage, signedInPage, startChatPageWorld, type ChatPageWorld } from './support/chat-pages.js';
import { launchBrowser } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { request } from './support/test-server.js';

describe('a kept conversation', () => {
  let world: ChatPageWorld;
  let browser: Browser;

  beforeAll(async () => {
    world = await startChatPageWorld();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
  });

  it('comes back after a reload, from a copied link and with the back button', async () => {
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    await page.goto(`${world.server.baseUrl}/chat/${world.assistantId}`);
    await page.evaluate('window.__sameDocument = true');
    world.provider.enqueue({ text: 'Mitosis makes two cells.' }, { text: 'Meiosis makes four.' });
    await sendMessage(page, 'What does mitosis make?');
    const answers = page.locator('li.assistant .markdown');
    await expect.poll(() => answers.allTextContents(), { timeout: 10_000 }).toEqual([expect.stringContaining('Mitosis makes two cells.')]);
    const path = await keptChatPath(page, world.assistantId);
    expect(await page.evaluate<boolean>('window.__sameDocument === true')).toBe(true);
    await sendMessage(page, 'And meiosis?');
    await expect.poll(() => answers.count(), { timeout: 10_000 }).toBe(2);

    const conversation = async () => (await page.locator('ol[aria-label="Conversation"] > li').allInnerTexts()).map((text) => text.trim());
    const expected = [
      expect.stringContaining('What does mitosis make?'),
      expect.stringContaining('Mitosis makes two cells.'),
      expect.stringContaining('And meiosis?'),
      expect.stringContaining('Meiosis makes four.'),
    ];
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Biology tutor' }).waitFor();
    expect(await conversation()).toEqual(expected);

    const copied = await context.newPage();
    await copied.goto(`${world.server.baseUrl}${path}`);
    await copied.getByRole('heading', { level: 1, name: 'Biology tutor' }).waitFor();
    expect((await copied.locator('ol[aria-label="Conversation"] > li').allInnerTexts()).map((text) => text.trim())).toEqual(expected);
    await copied.close();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
    await page.getByRole('heading', { level: 1, name: 'Chat' }).waitFor();
    await page.goBack();
    await page.waitForURL((url) => url.pathname === path);
    await page.getByRole('heading', { level: 1, name: 'Biology tutor' }).waitFor();
    expect(await conversation()).toEqual(expected);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('is renamed and deleted from the sidebar', async () => {
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    const created = await request(world.server, 'POST', '/api/chats', {
      token: world.learner.token,
      body: { assistant_id: world.assistantId, title: 'Plant cells' },
    });
    expect(created.status).toBe(201);
    await page.goto(`${world.server.baseUrl}/chat/${world.assistantId}/${created.body.id}`);
    const sidebar = page.getByRole('navigation', { name: 'Chats' });
    await sidebar.getByRole('button', { name: 'Rename “Plant cells”' }).click();
    await sidebar.getByRole('textbox', { name: 'Title of the chat' }).fill('Chloroplasts');
    await sidebar.getByRole('button', { name: 'Save' }).click();
    await sidebar.getByRole('link', { name: /Chloroplasts/ }).waitFor();
    const stored = await request(world.server, 'GET', `/api/chats/${created.body.id}`, { token: world.learner.token });
    expect(stored.body.title).toBe('Chloroplasts');

    await sidebar.getByRole('button', { name: 'Delete “Chloroplasts”' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this chat?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await request(world.server, 'GET', `/api/chats/${created.body.id}`, { token: world.learner.token })).status).toBe(200);
    await sidebar.getByRole('button', { name: 'Delete “Chloroplasts”' }).click();
    await dialog.getByRole('button', { name: 'Delete chat' }).click();
    await page.waitForURL((url) => url.pathname === `/chat/${world.assistantId}`);
    await expect.poll(() => sidebar.getByRole('link', { name: /Chloroplasts/ }).count()).toBe(0);
    expect((await request(world.server, 'GET', `/api/chats/${created.body.id}`, { token: world.learner.token })).status).toBe(404);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
