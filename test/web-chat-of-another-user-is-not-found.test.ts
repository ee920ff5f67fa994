/**
 * A chat is only its owner's, in the browser too: its owner sees it; a creator of the same
 * organization, a learner of another one and the organization's admin (owners_can_read_chats is
 * off) opening the same address get the not-found page with one h1 and nothing of the chat; an
 * anonymous visitor goes to the login page. Malformed and unknown ids are not found either.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPage, startChatPageWorld, type ChatPageWorld } from './support/chat-pages.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from './support/test-server.js';
import { expectOneHeading, launchBrowser, openPage } from './support/browser.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { possiblyUnset } from './support/possibly-unset.js';

const SECRET_TITLE = 'My secret revision plan';

async function expectNotFound(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expectOneHeading(page, 'Page not found');
  expect(await page.locator('body').innerText()).not.toContain(SECRET_TITLE);
  expect(await page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
}

describe('a chat opened by someone else', () => {
  let world: ChatPageWorld;
  let browser: Browser;
  let chatPath: string;

  beforeAll(async () => {
    world = await startChatPageWorld();
    browser = await launchBrowser();
    await peopleInTwoOrganizations(world.server, world.adminToken, [
      { email: 'creator-a@merino.test', role: 'creator', organization: 'A' },
      { email: 'learner-b@merino.test', role: 'learner', organization: 'B' },
    ]);
    const created = await request(world.server, 'POST', '/api/chats', {
      token: world.learner.token,
      body: { assistant_id: world.assistantId, title: SECRET_TITLE },
    });
    expect(created.status).toBe(201);
    chatPath = `/chat/${world.assistantId}/${created.body.id}`;
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
  });

  it('is shown to its owner', async () => {
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    await page.goto(`${world.server.baseUrl}${chatPath}`);
    await expectOneHeading(page, 'Biology tutor');
    await page.locator('.chat-title').getByText(SECRET_TITLE).waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it.each([
    { who: 'a creator of the same organization', email: 'creator-a@merino.test', password: 'creator-a@merino.test-password' },
    { who: 'a learner of another organization', email: 'learner-b@merino.test', password: 'learner-b@merino.test-password' },
    { who: 'the organization admin', email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
  ])('is not found for $who', async ({ email, password }) => {
    const { page, context, pageErrors } = await signedInPage(browser, world, { email, password });
    await expectNotFound(page, `${world.server.baseUrl}${chatPath}`);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('sends an anonymous visitor to the login page, and back after it', async () => {
    const { page, context } = await openPage(browser);
    await page.goto(`${world.server.baseUrl}${chatPath}`);
    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('next') === chatPath);
    await page.getByLabel('Email').fill(world.learner.email);
    await page.getByLabel('Password').fill(world.learner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname === chatPath);
    await expectOneHeading(page, 'Biology tutor');
    await context.close();
  });

  it('is not found under another assistant, nor for malformed or unknown ids', async () => {
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    const chatId = chatPath.split('/').at(-1);
    for (const path of [
      `/chat/${world.assistantId + 1000}/${chatId}`,
      `/chat/${world.assistantId}/999999`,
      `/chat/${world.assistantId}/1%20OR%201=1`,
      `/chat/not-a-number`,
      `/chat/${world.assistantId + 1000}`,
    ]) {
      await expectNotFound(page, `${world.server.baseUrl}${path}`);
    }
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
