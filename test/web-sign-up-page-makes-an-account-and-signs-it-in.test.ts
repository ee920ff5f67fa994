/**
 * Proves in a real Chromium that /signup lets someone with an organization's sign-up key make
 * their own account (docs/sign-up.md): the login page links to it; its fields "Name", "Email",
 * "Password" and "Sign-up key" and its "Sign up" button are found by their accessible names and
 * used with the keyboard alone; a wrong key gets the refusal in words and makes no account; an
 * email outside the allowed domain is told the domain; a too-short password is named at its field;
 * the right key signs the new learner in and opens their home (the chat). The page passes axe-core
 * at 1280 and 375 px, in each state, and fits 375 px without horizontal scrolling.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, openPage, screenshot, type OpenedPage } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';

const PASSWORD = 'a-long-enough-password';

describe('the sign-up page', () => {
  let server: TestServer;
  let browser: Browser;
  let signUpKey: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    const organization = await request(server, 'POST', '/api/organizations', {
      token: adminToken,
      body: { name: 'School of Sign-ups', slug: 'school-of-sign-ups' },
    });
    const opened = await request(server, 'PUT', `/api/organizations/${organization.body.id}/sign-up`, {
      token: adminToken,
      body: { enabled: true, role: 'learner', allowed_email_domain: 'school.test' },
    });
    expect(opened.status, opened.text).toBe(200);
    signUpKey = opened.body.sign_up_key;
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  async function fill(page: Page, fields: { name: string; email: string; password: string; key: string }): Promise<void> {
    await page.getByLabel('Name').fill(fields.name);
    await page.getByLabel('Email').fill(fields.email);
    await page.getByLabel('Password').fill(fields.password);
    await page.getByLabel('Sign-up key').fill(fields.key);
  }

  async function accountCount(email: string): Promise<number> {
    return (await server.store.db.selectFrom('users').select('id').where('email', '=', email).execute()).length;
  }

  it('is reached from the login page, refuses a wrong key in words, and signs the new learner in with the right one (1280 px)', async () => {
    const { context, page, pageErrors }: OpenedPage = await openPage(browser, { width: 1280 });
    await page.goto(`${server.baseUrl}/login`);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(/\/signup$/);
    await expectOneHeading(page, 'Sign up to Merino');
    await expectAccessible(page);
    await screenshot(page, 'sign-up-1280-empty');

    await fill(page, { name: 'Grace Hopper', email: 'grace@school.test', password: PASSWORD, key: 'WRONG-WRONG-WRONG' });
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect.poll(() => page.getByText('the sign-up key is not valid, or this email address cannot be used').count()).toBe(1);
    expect(await accountCount('grace@school.test')).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'sign-up-1280-refused');

    // Typed as someone copying it from a slide: lower case, spaces for hyphens.
    await page.getByLabel('Sign-up key').fill(signUpKey.toLowerCase().replaceAll('-', ' '));
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(/\/chat$/);
    await expect.poll(() => page.getByRole('button', { name: /^Account and settings:.*Grace Hopper/ }).count()).toBe(1);
    expect(await accountCount('grace@school.test')).toBe(1);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('works with the keyboard alone at 375 px, naming the allowed domain and the password rule (375 px)', async () => {
    const { context, page, pageErrors } = await openPage(browser, { width: 375 });
    await page.goto(`${server.baseUrl}/signup`);
    await expectOneHeading(page, 'Sign up to Merino');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'sign-up-375-empty');

    await page.getByLabel('Name').focus();
    await page.keyboard.type('Alan Turing');
    await page.keyboard.press('Tab');
    await page.keyboard.type('alan@elsewhere.test');
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    await page.keyboard.type(signUpKey);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByText('This sign-up key is only for email addresses at school.test.').count()).toBe(1);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'sign-up-375-wrong-domain');

    await page.getByLabel('Email').fill('alan@school.test');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Sign up' }).press('Enter');
    const passwordField = page.getByLabel('Password');
    await expect.poll(() => passwordField.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.getByText('The password must be at least 8 characters.').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'sign-up-375-weak-password');
    expect(await accountCount('alan@school.test')).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
