/**
 * /chat, the learner's home, per role: a learner sees the published assistant and not a creator's
 * unpublished one; that creator sees both; an anonymous visitor goes to the login page. The
 * learner's recent chats are listed; "Export as JSON" downloads them, and "Delete all my chats"
 * deletes them only after the confirmation, leaving another person's chats alone. A learner lands
 * here after logging in, and someone with no chats is offered no export and no deletion. Cards name
 * an assistant's owner by name, and by email only when the account has no name.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatPageSuite, signedInPage } from './support/chat-pages.js';
import { startChat } from './support/chat-world.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { expectOneHeading, openPage } from './support/browser.js';

describe('the chat home', () => {
  const suite = chatPageSuite();
  let creator: CreatedUser;

  beforeAll(async () => {
    creator = await createUser(suite.world.server, suite.world.adminToken, {
      email: 'creator@merino.test',
      role: 'creator',
      name: 'Carmen Creator',
    });
    const draft = await request(suite.world.server, 'POST', '/api/assistants', {
      token: creator.token,
      body: { name: 'Unfinished draft', description: 'Not published yet' },
    });
    expect(draft.status).toBe(201);
  });

  async function cardNames(user: { email: string; password: string }): Promise<string[]> {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, user);
    await page.goto(`${suite.world.server.baseUrl}/chat`);
    await expectOneHeading(page, 'Chat');
    await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
    const names = await page.locator('.assistant-card h3').allInnerTexts();
    expect(pageErrors).toEqual([]);
    await context.close();
    return names.sort();
  }

  it('shows a learner the published assistant only, and its creator their draft too', async () => {
    expect(await cardNames(suite.world.learner)).toEqual(['Biology tutor']);
    expect(await cardNames(creator)).toEqual(['Biology tutor', 'Unfinished draft']);
  });

  it("names each card's owner by name, or by email when the account has none", async () => {
    const { page, context } = await signedInPage(suite.browser, suite.world, creator);
    await page.goto(`${suite.world.server.baseUrl}/chat`);
    const card = (name: string) => page.locator('.assistant-card').filter({ has: page.getByRole('heading', { name }) });
    await expect.poll(() => card('Unfinished draft').locator('.owner').innerText()).toBe('By Carmen Creator');
    const admin = (await request(suite.world.server, 'GET', '/api/me', { token: suite.world.adminToken })).body as {
      email: string;
      name: string;
    };
    expect(await card('Biology tutor').locator('.owner').innerText()).toBe(`By ${admin.name || admin.email}`);
    await context.close();
  });

  it('sends an anonymous visitor to the login page', async () => {
    const { page, context } = await openPage(suite.browser);
    await page.goto(`${suite.world.server.baseUrl}/chat`);
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === '/chat');
    await context.close();
  });

  it('is where a learner lands, with no export or deletion before a first chat', async () => {
    const newcomer = await createUser(suite.world.server, suite.world.adminToken, { email: 'newcomer@merino.test', role: 'learner' });
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, newcomer);
    expect(new URL(page.url()).pathname).toBe('/chat');
    await page.getByRole('region', { name: 'Your recent chats' }).getByText('You have no chats yet.').waitFor();
    for (const name of ['Export as JSON', 'Export as Markdown', 'Delete all my chats'])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    await page.goto(`${suite.world.server.baseUrl}/`);
    await page.waitForURL(/\/chat$/);
    expect(pageErrors).toEqual([]);
    await context.close();

    const teacher = await signedInPage(suite.browser, suite.world, creator);
    expect(new URL(teacher.page.url()).pathname).toBe('/assistants');
    await teacher.context.close();
  });

  it('lists, exports and, after confirmation, deletes all of my chats', async () => {
    await startChat(suite.world, suite.world.learner.token, 'Mitosis questions');
    await startChat(suite.world, suite.world.learner.token, 'Meiosis questions');
    const othersChat = await startChat(suite.world, creator.token, 'Not the learner’s');
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat`);
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
    expect((await request(suite.world.server, 'GET', '/api/chats', { token: suite.world.learner.token })).body.total).toBe(2);
    await page.getByRole('button', { name: 'Delete all my chats' }).click();
    await dialog.getByRole('button', { name: 'Delete all' }).click();
    await page.getByRole('status').filter({ hasText: 'All your chats were deleted.' }).waitFor();
    await recent.getByText('You have no chats yet.').waitFor();
    expect(await recent.getByRole('link').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete all my chats' }).count()).toBe(0);
    expect((await request(suite.world.server, 'GET', '/api/chats', { token: suite.world.learner.token })).body.total).toBe(0);
    expect((await request(suite.world.server, 'GET', `/api/chats/${othersChat}`, { token: creator.token })).status).toBe(200);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
