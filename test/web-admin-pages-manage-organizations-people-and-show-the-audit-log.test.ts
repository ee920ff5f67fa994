/**
 * Proves in a real Chromium that a system administrator reaches /admin from the header's "Admin"
 * link, creates an organization ("New organization"), creates a person in it, changes their role,
 * resets their password and sees the one-time password once (and copies it; it logs in and must
 * be changed), is told clearly that a non-empty organization cannot be deleted, and finds those
 * actions on /admin/audit; that an organization admin sees neither the organizations page's link
 * nor other organizations' people; and that every page passes axe-core at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

function possiblyUnset<Value>(value: Value): Value | undefined {
  return value;
}

async function checked(page: Page, name: string): Promise<void> {
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await expectAccessible(page);
  await screenshot(page, name);
}

describe('the admin pages', () => {
  let server: TestServer;
  let browser: Browser;
  let organizationAdmin: { email: string; password: string };

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const systemAdmin = await loginAsAdmin(server);
    organizationAdmin = await createUser(server, systemAdmin, { email: 'head@merino.test', role: 'admin', name: 'Head of school' });
    await createUser(server, systemAdmin, { email: 'pupil@merino.test', role: 'learner', name: 'Pupil Home' });
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
  });

  it('lets a system admin create an organization and a person in it, change the role, reset the password, and see it audited', async () => {
    const { page, context, pageErrors } = await openPage(browser, { width: 1280 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin', exact: true }).click();
    await expectOneHeading(page, 'Administration');
    const landing = page.getByRole('main').getByRole('link');
    expect(await landing.allInnerTexts()).toEqual(['Organizations', 'People', 'Settings', 'Usage', 'Audit log', 'LTI', 'MCP servers']);
    await checked(page, 'admin-landing-1280');

    await page.getByRole('main').getByRole('link', { name: 'Organizations' }).click();
    await expectOneHeading(page, 'Organizations');
    await page.getByRole('button', { name: 'New organization', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New organization' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Faculty of Science');
    await dialog.getByRole('textbox', { name: 'Slug' }).fill('science');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Organization "Faculty of Science" created.').waitFor();
    const organizations = page.getByRole('table', { name: 'Organizations' });
    const scienceRow = organizations.getByRole('row', { name: /Faculty of Science/ });
    await expect.poll(() => scienceRow.getByRole('cell').allInnerTexts()).toEqual(['science', '0', 'Active', expect.any(String)]);
    await checked(page, 'admin-organizations-1280');

    await page.goto(`${server.baseUrl}/admin/users`);
    await expectOneHeading(page, 'People');
    await page.getByRole('button', { name: 'New person' }).click();
    const newPerson = page.getByRole('dialog', { name: 'New person' });
    await newPerson.getByRole('textbox', { name: 'Name' }).fill('Ada Teacher');
    await newPerson.getByRole('textbox', { name: 'Email' }).fill('ada@science.test');
    await newPerson.getByRole('combobox', { name: 'Role' }).selectOption('creator');
    await newPerson.getByRole('combobox', { name: 'Organization' }).selectOption({ label: 'Faculty of Science' });
    await newPerson.getByLabel('Initial password').fill('a-long-initial-password');
    await newPerson.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Ada Teacher can now log in.').waitFor();
    const users = page.getByRole('table', { name: 'Users' });
    const ada = users.getByRole('row', { name: /Ada Teacher/ });
    await expect.poll(() => ada.getByRole('cell').nth(0).innerText()).toBe('ada@science.test');
    expect(await ada.getByRole('cell').nth(2).innerText()).toBe('Faculty of Science');

    await users.getByRole('combobox', { name: 'Role of Ada Teacher' }).selectOption('admin');
    await page.getByText('Ada Teacher is now Admin.').waitFor();

    await users.getByRole('button', { name: 'Reset password of Ada Teacher' }).click();
    await page.getByRole('dialog', { name: 'Reset the password of Ada Teacher?' }).getByRole('button', { name: 'Reset password' }).click();
    const oneTime = page.getByRole('textbox', { name: 'One-time password' });
    await oneTime.waitFor();
    const password = await oneTime.inputValue();
    expect(password.length).toBeGreaterThanOrEqual(16);
    await page.getByText('They must choose a new password at their next login.').waitFor();
    await page.getByRole('button', { name: 'Copy the one-time password' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(password);
    await checked(page, 'admin-users-one-time-password-1280');
    const loggedIn = await request(server, 'POST', '/api/auth/login', { body: { email: 'ada@science.test', password } });
    expect(loggedIn.status, loggedIn.text).toBe(200);
    expect(loggedIn.body.user.must_change_credentials).toBe(true);
    expect(loggedIn.body.user.role).toBe('admin');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await oneTime.count()).toBe(0);

    await page.goto(`${server.baseUrl}/admin/organizations`);
    await page.getByRole('button', { name: 'Delete Faculty of Science' }).click();
    await page.getByRole('dialog', { name: 'Delete Faculty of Science?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: 'It cannot be deleted yet: The organization still has 1 users' }).waitFor();

    await page.goto(`${server.baseUrl}/admin/audit`);
    await expectOneHeading(page, 'Audit log');
    await page.getByRole('textbox', { name: 'Action' }).fill('user');
    await page.getByLabel('From').fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
    await page.getByLabel('To').fill(new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const log = page.getByRole('table', { name: 'Audit log' });
    await expect
      .poll(async () => (await log.getByRole('rowheader').allInnerTexts()).slice(0, 3))
      .toEqual(['user.password_reset', 'user.update', 'user.create']);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => log.getByRole('rowheader').allInnerTexts()).toContain('organization.create');
    await checked(page, 'admin-audit-1280');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it("shows an organization admin their own organization's people only, and works at 375 px", async () => {
    const { page, context, pageErrors } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, server.baseUrl, organizationAdmin.email, organizationAdmin.password);
    const adminLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin', exact: true });
    expect(await adminLink.isVisible()).toBe(true);
    await adminLink.click();
    await expectOneHeading(page, 'Administration');
    expect(await page.getByRole('main').getByRole('link', { name: 'Organizations' }).count()).toBe(0);
    await checked(page, 'admin-landing-375');

    await page.getByRole('main').getByRole('link', { name: 'People' }).click();
    await expectOneHeading(page, 'People');
    const users = page.getByRole('table', { name: 'Users' });
    await users.getByRole('row', { name: /Pupil Home/ }).waitFor();
    const emails = await users.locator('tbody td.email').allInnerTexts();
    expect(emails.sort()).toEqual(['head@merino.test', 'pupil@merino.test']);
    await page.getByRole('navigation', { name: 'Showing 1–2 of 2' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Organization' }).count()).toBe(0);
    expect(await users.getByRole('button', { name: /^Move / }).count()).toBe(0);
    // Nothing the server would refuse: not their own role, disabling or reset.
    expect(await users.getByRole('button', { name: 'Disable Head of school' }).count()).toBe(0);
    expect(await users.getByRole('combobox', { name: 'Role of Head of school' }).count()).toBe(0);
    await page.getByRole('searchbox', { name: 'Name or email' }).fill('ada');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('Nothing to show.').waitFor();
    // An empty table has no pager: "Showing 0–0 of 0" said nothing the table did not.
    expect(await page.getByRole('navigation', { name: /^Showing / }).count()).toBe(0);
    await checked(page, 'admin-users-375');

    await page.goto(`${server.baseUrl}/admin/audit`);
    await expectOneHeading(page, 'Audit log');
    const log = page.getByRole('table', { name: 'Audit log' });
    await log.getByRole('rowheader').first().waitFor();
    expect(await log.getByRole('rowheader').allInnerTexts()).not.toContain('organization.create');
    await checked(page, 'admin-audit-375');

    await page.goto(`${server.baseUrl}/admin/organizations`);
    await page.getByText('Only administrators can use these pages.').waitFor();
    expect(await page.getByRole('button', { name: 'New organization' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
