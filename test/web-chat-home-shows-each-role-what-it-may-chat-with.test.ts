/**
 * /chat, the learner's home, per role: a learner sees the published assistant and not a creator's
 * unpublished one; that creator sees both; an anonymous visitor goes to the login page. The
 * learner's recent chats are listed; "Export as JSON" downloads them, and "Delete all my chats"
 * deletes them only after the confirmation, leaving another person's chats alone.
 */
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPage, startChatPageWorld, type ChatPageWorld } from './support/chat-pages.js';
import { startChat } from './support/chat-world.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { expectOneHeading, launchBrowser, openPage } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe('the chat home', () => {
  let world: ChatPageWorld;
  let browser: Browser;
  let creator: CreatedUser;

  beforeAll(async () => {
    world = await startChatPageWorld();
    browser = await launchBrowser();
    creator = await createUser(world.server, world.adminToken, { email: 'creator@merino.test', role: 'creator' });
    const draft = await request(world.server, 'POST', '/api/assistants', {
      token: creator.token,
      body: { name: 'Unfinished draft', description: 'Not published yet' },
    });
    expect(draft.status).toBe(201);
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
  });

  async function cardNames(user: { email: string; password: string }): Promise<string[]> {
    const { page, context, pageErrors } = await signedInPage(browser, world, user);
    await page.goto(`${world.server.baseUrl}/chat`);
    await expectOneHeading(page, 'Chat');
    await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
    const names = await page.locator('.assistant-card h3').allInnerTexts();
    expect(pageErrors).toEqual([]);
    await context.close();
    return names.sort();
  }

  it('shows a learner the published assistant only, and its creator their draft too', async () => {
    expect(await cardNames(world.learner)).toEqual(['Biology tutor']);
    expect(await cardNames(creator)).toEqual(['Biology tutor', 'Unfinished draft']);
  });

  it('sends an anonymous visitor to the login page', async () => {
    const { page, context } = await openPage(browser);
    await page.goto(`${world.server.baseUrl}/chat`);
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === '/chat');
    await context.close();
  });

  it('lists, exports and, after confirmation, deletes all of my chats', async () => {
    await startChat(world, world.learner.token, 'Mitosis questions');
    await startChat(world, world.learner.token, 'Meiosis questions');
    const othersChat = await startChat(world, creator.token, 'Not the learner’s');
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    await page.goto(`${world.server.baseUrl}/chat`);
    const recent = page.getByRole('region', { name: 'Your recent chats' });
    await expect.poll(() => recent.getByRole('link').allInnerTexts()).toEqual(['Meiosis questions', 'Mitosis questions']);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export as JSON' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^merino-chats-.*\.json$/);
    const exported = readFileSync(await download.path(), 'utf8');
    expect(exported).toContain('Mitosis questions');
    expect(exported).not.toContain('Not the learner’s');

    await page.getByRole('button', { name: 'Delete all my chats' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete all your chats?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await request(world.server, 'GET', '/api/chats', { token: world.learner.token })).body.total).toBe(2);
    await page.getByRole('button', { name: 'Delete all my chats' }).click();
    await dialog.getByRole('button', { name: 'Delete all' }).click();
    await page.getByRole('status').filter({ hasText: 'All your chats were deleted.' }).waitFor();
    expect(await recent.getByText('You have no chats yet.').isVisible()).toBe(true);
    expect((await request(world.server, 'GET', '/api/chats', { token: world.learner.token })).body.total).toBe(0);
    expect((await request(world.server, 'GET', `/api/chats/${othersChat}`, { token: creator.token })).status).toBe(200);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
