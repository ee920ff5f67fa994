/**
 * Proves in a real Chromium that /settings/api-keys shows a new key once and revokes it for real:
 * the created key is shown with a Copy button that puts exactly that key on the clipboard and
 * announces "Copied", and the key works as a Bearer token against /api/me; after leaving the page
 * and coming back the whole key is gone from it, and the list shows the key's last use once it
 * has been used (and "Never used" before); a key may expire, and the list says when; revoking
 * asks first (cancelling keeps the key working) and then the key gets 401. A learner whose
 * organization does not let learners create keys is told so and gets no key. The page passes
 * axe-core with content and fits 375 px in dark mode.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin, request, startTestServer, createUser, type CreatedUser, type TestServer } from './support/test-server.js';
import {
  expectAccessible,
  expectOneHeading,
  launchBrowser,
  logInThroughPage,
  openAccountMenu,
  openPage,
  screenshot,
} from './support/browser.js';
import { insertOrganization } from '../src/store/organizations-repository.js';

const KEY_NAME = 'Laptop scripts';

interface ApiKeyListed {
  name: string;
  last_used_at: string | null;
  expires_at: string | null;
}

describe('API keys in the web app', () => {
  let server: TestServer;
  let browser: Browser;
  let creator: CreatedUser;
  let learner: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    creator = await createUser(server, adminToken, { email: 'creator@school.test', role: 'creator' });
    const strictOrganization = await insertOrganization(server.store.db, 'strict-school', 'Strict school');
    const refused = await request(server, 'PATCH', `/api/organizations/${strictOrganization}/settings`, {
      token: adminToken,
      body: { learners_create_api_keys: false },
    });
    expect(refused.status).toBe(200);
    learner = await createUser(server, adminToken, { email: 'learner@strict.test', role: 'learner', organization_id: strictOrganization });
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  async function openKeysPage(page: Page, person: CreatedUser): Promise<void> {
    await logInThroughPage(page, server.baseUrl, person.email, person.password);
    await openAccountMenu(page);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(/\/settings\/api-keys$/);
    await expectOneHeading(page, 'API keys');
  }

  function keyCard(page: Page, name: string) {
    return page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });
  }

  async function meWith(key: string): Promise<number> {
    return (await request(server, 'GET', '/api/me', { token: key })).status;
  }

  it('shows the new key once with Copy, records its last use, and revokes it after confirming', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await openKeysPage(page, creator);
    await page.getByLabel('Name').fill(KEY_NAME);
    await page.getByRole('button', { name: 'Create key' }).click();

    const shownKey = page.getByLabel('New API key');
    await shownKey.waitFor();
    const key = await shownKey.inputValue();
    expect(key).toMatch(/^mrk_/);
    await page.getByText('it will not be shown again').waitFor();
    // By keyboard: focus lands on the new key's heading, then the key, then Copy, with a visible outline.
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe(`Your new key "${KEY_NAME}"`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent.trim()')).toBe('Copy');
    expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Copied' }).count()).toBe(1);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);

    const card = keyCard(page, KEY_NAME);
    expect(await card.innerText()).toContain(key.slice(0, 8));
    expect(await card.innerText()).toContain('Never used');
    await expectAccessible(page);
    await screenshot(page, 'api-keys-new-key-shown-1280-light');

    const me = await request(server, 'GET', '/api/me', { token: key });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(creator.email);

    await page.getByRole('link', { name: 'Assistants' }).click();
    await page.waitForURL(/\/assistants$/);
    await openAccountMenu(page);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(/\/settings\/api-keys$/);
    await expectOneHeading(page, 'API keys');
    await keyCard(page, KEY_NAME).waitFor();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    const listed = (await request(server, 'GET', '/api/api-keys', { token: creator.token })).body.items as {
      last_used_at: string | null;
    }[];
    expect(listed[0]?.last_used_at).not.toBeNull();
    expect(await keyCard(page, KEY_NAME).innerText()).not.toContain('Never used');

    await page.getByRole('button', { name: `Revoke ${KEY_NAME}` }).click();
    const dialog = page.getByRole('dialog', { name: `Revoke "${KEY_NAME}"?` });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await meWith(key)).toBe(200);

    await page.getByRole('button', { name: `Revoke ${KEY_NAME}` }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('You have no API keys yet.').waitFor();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'was revoked' }).innerText())
      .toBe(`The key "${KEY_NAME}" was revoked.`);
    expect(await meWith(key)).toBe(401);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('creates a key that expires and lists when, fitting 375 px in dark mode', async () => {
    const { context, page, pageErrors } = await openPage(browser, { width: 375, colorScheme: 'dark' });
    await openKeysPage(page, creator);
    await page.getByLabel('Name').fill('Moodle plug-in');
    await page.getByLabel('Expires').selectOption({ label: 'In 30 days' });
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('New API key').waitFor();
    const listed = (await request(server, 'GET', '/api/api-keys', { token: creator.token })).body.items as ApiKeyListed[];
    const expiring = listed.find((listedKey) => listedKey.name === 'Moodle plug-in');
    const days = (Date.parse(expiring?.expires_at ?? '') - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    const expiryShown = keyCard(page, 'Moodle plug-in')
      .locator('div', { has: page.getByText('Expires', { exact: true }) })
      .locator('dd');
    expect(await expiryShown.innerText()).toContain(String(new Date(expiring!.expires_at!).getFullYear()));

    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'api-keys-375-dark');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('tells a learner that their organization does not allow them keys, and creates none', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openKeysPage(page, learner);
    await page.getByLabel('Name').fill('My key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Your organization does not let learners create API keys.', { exact: false }).waitFor();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect((await request(server, 'GET', '/api/api-keys', { token: learner.token })).body.items).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, 'api-keys-learner-refused-1280-light');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
