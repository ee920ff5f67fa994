/**
 * Proves in a real Chromium that /assistants/{id} shows only what the server's allowed_actions
 * permit: a learner opening a published assistant, and a creator of the same organization it is
 * not shared with, see its name, a "Start a chat" link and a read-only view with no textbox, no select, no "Save", no
 * "Delete" and no "Convert to multi-tool"; a creator it is shared with sees its configuration,
 * still read-only; someone of another organization gets "Assistant not found". The read-only page
 * passes axe-core at 375 px in dark mode without horizontal overflow.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow, waitForHeading } from './support/page-checks.js';

const PEOPLE = [
  { email: 'owner@school.test', role: 'creator', organization: 'A' },
  { email: 'learner@school.test', role: 'learner', organization: 'A' },
  { email: 'colleague@school.test', role: 'creator', organization: 'A' },
  { email: 'shared@school.test', role: 'creator', organization: 'A' },
  { email: 'stranger@other.test', role: 'creator', organization: 'B' },
] as const;

async function expectNoEditControls(page: Page): Promise<void> {
  expect(await page.locator('main input, main textarea, main select').count()).toBe(0);
  expect(await page.getByRole('textbox').count()).toBe(0);
  for (const name of ['Save', 'Delete', 'Convert to multi-tool', 'Insert {context}']) {
    expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
  }
}

describe('the assistant page for those who may not change it', () => {
  let server: TestServer;
  let browser: Browser;
  let assistantId: number;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const [ownerToken] = await peopleInTwoOrganizations(server, await loginAsAdmin(server), PEOPLE);
    const created = await request(server, 'POST', '/api/assistants', {
      token: ownerToken,
      body: { name: 'Published helper', description: 'Helps every class', system_prompt: 'Be brief and kind.' },
    });
    assistantId = created.body.id as number;
    expect(
      (await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: ownerToken, body: { published: true } })).status,
    ).toBe(200);
    const shared = await request(server, 'PUT', `/api/assistants/${assistantId}/shares`, {
      token: ownerToken,
      body: { user_emails: ['shared@school.test'] },
    });
    expect(shared.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  async function openAs(email: string, options: { width?: number; colorScheme?: 'light' | 'dark' } = {}) {
    const opened = await openPage(browser, options);
    await logInThroughPage(opened.page, server.baseUrl, email, `${email}-password`);
    await opened.page.goto(`${server.baseUrl}/assistants/${assistantId}`);
    return opened;
  }

  it('shows a learner the published assistant with no edit controls', async () => {
    const { context, page, pageErrors } = await openAs('learner@school.test', { width: 375, colorScheme: 'dark' });
    await waitForHeading(page, 'Published helper');
    await expectOneHeading(page, 'Published helper');
    await expect.poll(() => page.getByText('Helps every class').count()).toBe(1);
    await expectNoEditControls(page);
    expect(await page.getByText('Be brief and kind.').count()).toBe(0);
    // What a learner may do with it is one link away: a chat with it.
    const chat = page.getByRole('link', { name: 'Start a chat with Published helper' });
    expect(await chat.getAttribute('href')).toBe(`/chat/${assistantId}`);
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'assistant-read-only-learner-375-dark');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a same-organization creator it is not shared with the same read-only view', async () => {
    const { context, page } = await openAs('colleague@school.test');
    await waitForHeading(page, 'Published helper');
    await expectOneHeading(page, 'Published helper');
    await expect.poll(() => page.getByText('Helps every class').count()).toBe(1);
    await expectNoEditControls(page);
    await context.close();
  });

  it('shows a creator it is shared with its configuration, read-only', async () => {
    const { context, page } = await openAs('shared@school.test');
    await waitForHeading(page, 'Published helper');
    await expectOneHeading(page, 'Published helper');
    await expect.poll(() => page.getByText('Be brief and kind.').count()).toBe(1);
    await expectNoEditControls(page);
    await expectAccessible(page);
    await screenshot(page, 'assistant-read-only-shared-1280-light');
    await context.close();
  });

  it('tells someone of another organization that there is no such assistant', async () => {
    const { context, page } = await openAs('stranger@other.test');
    await waitForHeading(page, 'Assistant not found');
    await expectOneHeading(page, 'Assistant not found');
    expect(await page.getByText('Published helper').count()).toBe(0);
    await expectNoEditControls(page);
    await context.close();
  });
});
