/**
 * Proves in a real Chromium that the sharing panel on /assistants/{id} shares and publishes for
 * real: the owner shares an assistant by email (the API then lists the share and that colleague
 * can open it) and the access list names them; an unknown email is refused at the email field
 * and changes nothing; publishing makes it usable by a learner of the organization and the panel
 * says so, and making it private again takes that back; removing a person takes their access.
 * A colleague it is shared with, whose allowed_actions hold neither 'share' nor 'publish', sees
 * none of the controls. The page passes axe-core with content, and fits 375 px in light and dark.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';

const ASSISTANT_NAME = 'Essay coach';

describe('sharing and publishing an assistant in the web app', () => {
  let server: TestServer;
  let browser: Browser;
  let owner: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let assistantId: number;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    owner = await createUser(server, adminToken, { email: 'owner@school.test', role: 'creator' });
    colleague = await createUser(server, adminToken, { email: 'colleague@school.test', role: 'creator' });
    learner = await createUser(server, adminToken, { email: 'learner@school.test', role: 'learner' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: owner.token,
      body: { name: ASSISTANT_NAME, description: 'Gives feedback on essays' },
    });
    expect(created.status).toBe(201);
    assistantId = created.body.id as number;
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  async function openAssistantAs(page: Page, person: CreatedUser): Promise<void> {
    await logInThroughPage(page, server.baseUrl, person.email, person.password);
    await page.goto(`${server.baseUrl}/assistants/${assistantId}`);
    await expectOneHeading(page, ASSISTANT_NAME);
  }

  async function sharesOnServer(): Promise<string[]> {
    return (await request(server, 'GET', `/api/assistants/${assistantId}/shares`, { token: owner.token })).body.user_emails as string[];
  }

  async function statusFor(person: CreatedUser): Promise<number> {
    return (await request(server, 'GET', `/api/assistants/${assistantId}`, { token: person.token })).status;
  }

  it('shares by email, refuses an unknown email at the field, publishes, and removes access', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openAssistantAs(page, owner);
    const accessList = page.getByRole('list').filter({ hasText: owner.email });
    await expect.poll(() => accessList.innerText()).toContain('Owner');
    expect(await statusFor(colleague)).toBe(404);

    const emailField = page.getByLabel('Share with (email)');
    await emailField.fill('COLLEAGUE@school.test');
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await expect.poll(() => accessList.innerText()).toContain(colleague.email);
    expect(await emailField.inputValue()).toBe('');
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Shared with' }).innerText())
      .toBe(`Shared with ${colleague.email}.`);
    expect(await sharesOnServer()).toEqual([colleague.email]);
    expect(await statusFor(colleague)).toBe(200);

    await emailField.fill('nobody@school.test');
    await emailField.press('Enter');
    await expect.poll(() => emailField.getAttribute('aria-invalid')).toBe('true');
    const fieldError = page.locator(
      `#${await emailField.getAttribute('aria-describedby').then((ids) => ids?.split(' ').find((id) => id.endsWith('-error')))}`,
    );
    expect(await fieldError.innerText()).toBe('Nobody has the email nobody@school.test.');
    expect(await sharesOnServer()).toEqual([colleague.email]);
    await emailField.fill('');
    await expect.poll(() => emailField.getAttribute('aria-invalid')).toBe(null);

    expect(await statusFor(learner)).toBe(404);
    await expect.poll(() => page.getByText('Private', { exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Publish to organization' }).click();
    await expect.poll(() => page.getByText('Published to your organization', { exact: true }).count()).toBeGreaterThan(0);
    await expect.poll(() => accessList.innerText()).toContain('Everyone in the organization');
    expect(await statusFor(learner)).toBe(200);
    const published = await request(server, 'GET', `/api/assistants/${assistantId}`, { token: owner.token });
    expect(published.body.published).toBe(true);

    await expectAccessible(page);
    await screenshot(page, 'sharing-panel-shared-and-published-1280-light');

    await page.getByRole('button', { name: 'Make private' }).click();
    await expect.poll(() => page.getByText('Private', { exact: true }).count()).toBe(1);
    expect(await accessList.innerText()).not.toContain('Everyone in the organization');
    expect(await statusFor(learner)).toBe(404);

    await page.getByRole('button', { name: `Remove access of ${colleague.email}` }).click();
    await expect.poll(() => accessList.innerText()).not.toContain(colleague.email);
    expect(await sharesOnServer()).toEqual([]);
    expect(await statusFor(colleague)).toBe(404);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows no share or publish controls to a colleague it is shared with, as allowed_actions says', async () => {
    await request(server, 'PUT', `/api/assistants/${assistantId}/shares`, { token: owner.token, body: { user_emails: [colleague.email] } });
    const seen = await request(server, 'GET', `/api/assistants/${assistantId}`, { token: colleague.token });
    expect(seen.body.allowed_actions).not.toContain('share');
    expect(seen.body.allowed_actions).not.toContain('publish');

    const { context, page, pageErrors } = await openPage(browser);
    await openAssistantAs(page, colleague);
    expect(await page.getByLabel('Share with (email)').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Share', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Publish to organization|Make private/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Remove access/ }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it.each([{ colorScheme: 'light' as const }, { colorScheme: 'dark' as const }])(
    'fits 375 px and passes axe-core with people listed ($colorScheme)',
    async ({ colorScheme }) => {
      await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: owner.token, body: { published: true } });
      const { context, page } = await openPage(browser, { width: 375, colorScheme });
      await openAssistantAs(page, owner);
      await expect.poll(() => page.getByText(colleague.email).count()).toBe(1);
      await page.getByLabel('Share with (email)').fill('nobody@school.test');
      await page.getByRole('button', { name: 'Share', exact: true }).click();
      await page.getByText('Nobody has the email nobody@school.test.').waitFor();
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `sharing-panel-375-${colorScheme}`);
      await context.close();
    },
  );
});
