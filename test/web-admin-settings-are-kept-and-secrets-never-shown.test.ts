/**
 * Proves in a real Chromium that /admin/settings lets an organization admin change a member
 * policy, limits, a provider URL and key, and switch a tool off in one save; that a refused save
 * shows the API's message at the field it names and keeps every other change in the form; that a
 * reload shows what was saved while the provider key is never shown back (not in a field, not in
 * the page); that self sign-up is turned on and its key rotated (each key shown once, the old one
 * refused); that model prices are added, edited and reset; that a system admin picks another
 * organization; that creators and learners are told the page is for administrators; and that the
 * page is keyboard-usable and axe-clean at 1280 and 375 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { focusRingWidth, horizontalOverflow, isFocused } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type TestServer,
} from './support/test-server.js';

const PROVIDER_KEY = 'sk-never-shown-again-4242';

async function openSettings(page: Page, server: TestServer, person: CreatedUser): Promise<void> {
  await logInThroughPage(page, server.baseUrl, person.email, person.password);
  await page.goto(`${server.baseUrl}/admin/settings`);
  await expectOneHeading(page, 'Organization settings');
}

function limitField(page: Page, name: string) {
  return page.getByRole('textbox', { name, exact: true });
}

describe('the organization settings page', () => {
  let server: TestServer;
  let browser: Browser;
  let systemAdminToken: string;
  let admin: CreatedUser;
  let organizationId: number;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    systemAdminToken = await loginAsAdmin(server);
    admin = await createUser(server, systemAdminToken, { email: 'settings-admin@school.test', role: 'admin' });
    organizationId = (await request(server, 'GET', '/api/me', { token: admin.token })).body.organization_id;
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
  });

  it('saves a policy, limits, a provider and a disabled tool, shows refusals at their field, and keeps the key write-only', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await openSettings(page, server, admin);
    await page.getByRole('checkbox', { name: "Assistants' owners may read members' chats with them" }).check();
    await page.getByRole('textbox', { name: 'Keep chats for (days)' }).fill('30');
    await limitField(page, 'Tokens per month (whole organization)').fill('250000');
    await limitField(page, 'Cost per month').fill('12.5');
    await page.getByRole('group', { name: 'Tools' }).getByRole('checkbox', { name: 'weather' }).uncheck();
    await page.getByRole('button', { name: 'Set OpenAI-compatible API key' }).click();
    await page.getByLabel('New OpenAI-compatible API key').fill(PROVIDER_KEY);
    // A URL the API refuses: its message is shown at the field it names, and nothing else is lost.
    await page.getByRole('textbox', { name: 'OpenAI-compatible base URL' }).fill('ftp://models.example.test/v1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Not saved: check the fields marked below. Your changes are still in the form.').waitFor();
    const urlField = page.getByRole('textbox', { name: 'OpenAI-compatible base URL' });
    await expect.poll(() => urlField.getAttribute('aria-invalid')).toBe('true');
    expect(
      await urlField.evaluate((field: { ownerDocument: { activeElement: unknown } }) => field === field.ownerDocument.activeElement),
    ).toBe(true);
    expect(await limitField(page, 'Tokens per month (whole organization)').inputValue()).toBe('250000');
    expect(await page.getByLabel('New OpenAI-compatible API key').inputValue()).toBe(PROVIDER_KEY);
    const unchanged = await request(server, 'GET', `/api/organizations/${organizationId}/settings`, { token: admin.token });
    expect(unchanged.body.limits.tokens_per_month).toBeNull();

    await urlField.fill('https://models.example.test/v1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect(await page.getByLabel('New OpenAI-compatible API key').count()).toBe(0);
    expect(await page.content()).not.toContain(PROVIDER_KEY);

    const saved = await request(server, 'GET', `/api/organizations/${organizationId}/settings`, { token: admin.token });
    expect(saved.text).not.toContain(PROVIDER_KEY);
    expect(saved.body).toMatchObject({
      owners_can_read_chats: true,
      chat_retention_days: 30,
      providers: { openai: { base_url: 'https://models.example.test/v1', api_key_set: true } },
      plugins: { tools: { weather: false, simple_rag: true } },
      limits: { tokens_per_month: 250_000, cost_per_month_usd: 12.5, storage_gb: null },
    });

    await page.reload();
    await expectOneHeading(page, 'Organization settings');
    await expect
      .poll(() => page.getByRole('textbox', { name: 'OpenAI-compatible base URL' }).inputValue())
      .toBe('https://models.example.test/v1');
    expect(await page.getByRole('checkbox', { name: "Assistants' owners may read members' chats with them" }).isChecked()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Keep chats for (days)' }).inputValue()).toBe('30');
    expect(await limitField(page, 'Tokens per month (whole organization)').inputValue()).toBe('250000');
    expect(await limitField(page, 'Cost per month').inputValue()).toBe('12.5');
    expect(await page.getByRole('group', { name: 'Tools' }).getByRole('checkbox', { name: 'weather' }).isChecked()).toBe(false);
    await page.getByText('OpenAI-compatible API key: Set').waitFor();
    expect(await page.content()).not.toContain(PROVIDER_KEY);
    // The small fast model offers only the connectors the API accepts for it, so no choice fails on save.
    const smallFastChoices = await page
      .getByRole('combobox', { name: 'Small fast model: provider' })
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
    expect(smallFastChoices).toEqual(['', 'openai', 'ollama']);

    // Clearing the key is a change of its own; the page still never had it.
    await page.getByRole('button', { name: 'Clear OpenAI-compatible API key' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await page.getByText('OpenAI-compatible API key: Not set').waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('turns sign-up on, shows each key once, rotates it, and shares the sign-up page', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await openSettings(page, server, admin);
    const section = page.getByRole('region', { name: 'Self sign-up' });
    await section.getByRole('checkbox', { name: 'Let people sign up with the key' }).check();
    await section.getByRole('textbox', { name: 'Allowed email domain' }).fill('school.test');
    await section.getByRole('combobox', { name: 'Role for new people' }).selectOption('creator');
    await section.getByRole('button', { name: 'Save sign-up' }).click();
    await section.getByText('Sign-up saved.').waitFor();
    const firstKey = await section.getByRole('textbox', { name: 'New sign-up key' }).inputValue();
    expect(firstKey).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$/);
    await section.getByRole('button', { name: 'Copy New sign-up key' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(firstKey);
    expect(await section.getByRole('textbox', { name: 'Sign-up page to share' }).inputValue()).toBe(`${server.baseUrl}/signup`);

    await section.getByRole('button', { name: 'Make a new sign-up key' }).click();
    await page.getByRole('dialog', { name: 'Make a new sign-up key?' }).getByRole('button', { name: 'Make a new sign-up key' }).click();
    await expect.poll(() => section.getByRole('textbox', { name: 'New sign-up key' }).inputValue()).not.toBe(firstKey);
    const secondKey = await section.getByRole('textbox', { name: 'New sign-up key' }).inputValue();
    await section.getByRole('button', { name: 'Done' }).click();
    expect(await section.getByRole('textbox', { name: 'New sign-up key' }).count()).toBe(0);

    const person = { name: 'New Teacher', email: 'new.teacher@school.test', password: 'a long enough password' };
    const withOld = await request(server, 'POST', '/api/auth/sign-up', { body: { ...person, sign_up_key: firstKey } });
    expect(withOld.status).toBe(403);
    const withNew = await request(server, 'POST', '/api/auth/sign-up', { body: { ...person, sign_up_key: secondKey } });
    expect(withNew.status, withNew.text).toBe(201);
    expect(withNew.body.user).toMatchObject({ role: 'creator', organization_id: organizationId });

    await page.reload();
    const reloaded = page.getByRole('region', { name: 'Self sign-up' });
    await expect.poll(() => reloaded.getByRole('textbox', { name: 'Allowed email domain' }).inputValue()).toBe('school.test');
    expect(await reloaded.getByRole('checkbox', { name: 'Let people sign up with the key' }).isChecked()).toBe(true);
    expect(await reloaded.getByRole('combobox', { name: 'Role for new people' }).inputValue()).toBe('creator');
    expect(await reloaded.getByRole('textbox', { name: 'New sign-up key' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secondKey);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('adds, edits and removes model prices, and resets them to the defaults', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await openSettings(page, server, admin);
    const section = page.getByRole('region', { name: 'Model prices' });
    const table = section.getByRole('table', { name: 'Model prices' });
    await table.waitFor();
    await section.getByRole('textbox', { name: 'Model' }).fill('campus-llm');
    await section.getByRole('textbox', { name: 'Input (USD per million tokens)' }).fill('0.4');
    await section.getByRole('textbox', { name: 'Output (USD per million tokens)' }).fill('-1');
    await section.getByRole('button', { name: 'Save price' }).click();
    await section.getByText('Enter a price of 0 or more.').waitFor();
    await section.getByRole('textbox', { name: 'Output (USD per million tokens)' }).fill('1.6');
    await section.getByRole('button', { name: 'Save price' }).click();
    await section.getByText('Price of campus-llm saved.').waitFor();
    const row = table.getByRole('row', { name: /campus-llm/ });
    await expect.poll(() => row.innerText()).toMatch(/campus-llm\s+0\.4\s+1\.6\s+Organization/);

    await section.getByRole('button', { name: 'Edit the price of campus-llm' }).click();
    await section.getByRole('heading', { name: 'Price of campus-llm' }).waitFor();
    await section.getByRole('textbox', { name: 'Output (USD per million tokens)' }).fill('2');
    await section.getByRole('button', { name: 'Save price' }).click();
    await expect.poll(() => row.innerText()).toMatch(/campus-llm\s+0\.4\s+2\s+Organization/);

    await section.getByRole('textbox', { name: 'Model' }).fill('campus-small');
    await section.getByRole('textbox', { name: 'Input (USD per million tokens)' }).fill('0.1');
    await section.getByRole('textbox', { name: 'Output (USD per million tokens)' }).fill('0.2');
    await section.getByRole('button', { name: 'Save price' }).click();
    await section.getByRole('button', { name: 'Remove the price of campus-small' }).click();
    await section.getByText('Price of campus-small removed.').waitFor();
    expect(await table.getByRole('row', { name: /campus-small/ }).count()).toBe(0);

    await page.reload();
    const again = page.getByRole('region', { name: 'Model prices' });
    await expect.poll(() => again.getByRole('row', { name: /campus-llm/ }).innerText()).toMatch(/0\.4\s+2\s+Organization/);
    const prices = await request(server, 'GET', `/api/organizations/${organizationId}/model-prices`, { token: admin.token });
    expect(prices.body.prices).toContainEqual({
      model: 'campus-llm',
      input_usd_per_million: 0.4,
      output_usd_per_million: 2,
      source: 'organization',
    });

    await again.getByRole('button', { name: 'Reset to defaults' }).click();
    await page
      .getByRole('dialog', { name: 'Reset model prices to the defaults?' })
      .getByRole('button', { name: 'Reset to defaults' })
      .click();
    await again.getByText('Model prices reset to the defaults.').waitFor();
    expect(await again.getByRole('row', { name: /campus-llm/ }).count()).toBe(0);
    const reset = await request(server, 'GET', `/api/organizations/${organizationId}/model-prices`, { token: admin.token });
    expect(reset.body.prices.every((price: { source: string }) => price.source === 'default')).toBe(true);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('is used with the keyboard: the contents lead to a section, a limit is typed and saved with Enter', async () => {
    const { page, context } = await openPage(browser);
    await openSettings(page, server, admin);
    const contents = page.getByRole('navigation', { name: 'On this page' });
    const limitsLink = contents.getByRole('link', { name: 'Limits' });
    await limitsLink.focus();
    expect(await focusRingWidth(limitsLink)).toBeGreaterThan(0);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#limits$/);
    await page.keyboard.press('Tab');
    const perMember = limitField(page, 'Tokens per member per day');
    await expect.poll(() => isFocused(perMember)).toBe(true);
    await page.keyboard.type('5000');
    await page.keyboard.press('Enter');
    await page.getByText('Settings saved.').waitFor();
    const saved = await request(server, 'GET', `/api/organizations/${organizationId}/settings`, { token: admin.token });
    expect(saved.body.limits.tokens_per_user_per_day).toBe(5000);
    await context.close();
  });

  it('is accessible at 1280 and 375 px, with no sideways scrolling on a phone', async () => {
    for (const width of [1280, 375]) {
      const { page, context } = await openPage(browser, { width });
      await openSettings(page, server, admin);
      await page.getByRole('table', { name: 'Model prices' }).waitFor();
      await page
        .getByRole('region', { name: 'Self sign-up' })
        .getByText(/Sign-up key:/)
        .waitFor();
      await expectAccessible(page);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `admin-settings-${width}`);
      await context.close();
    }
  });

  it('lets a system admin pick another organization and change only that one', async () => {
    const created = await request(server, 'POST', '/api/organizations', {
      token: systemAdminToken,
      body: { name: 'Faculty of Arts', slug: 'arts' },
    });
    expect(created.status, created.text).toBe(201);
    const systemAdmin = await request(server, 'GET', '/api/me', { token: systemAdminToken });
    const { page, context } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${server.baseUrl}/admin/settings`);
    const picker = page.getByRole('combobox', { name: 'Organization', exact: true });
    await expect.poll(() => picker.inputValue()).toBe(String(systemAdmin.body.organization_id));
    await picker.selectOption({ label: 'Faculty of Arts' });
    await expect.poll(() => limitField(page, 'Assistants (whole organization)').inputValue()).toBe('');
    await limitField(page, 'Assistants (whole organization)').fill('7');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const arts = await request(server, 'GET', `/api/organizations/${created.body.id}/settings`, { token: systemAdminToken });
    const own = await request(server, 'GET', `/api/organizations/${organizationId}/settings`, { token: systemAdminToken });
    expect([arts.body.limits.max_assistants, own.body.limits.max_assistants]).toEqual([7, null]);
    await context.close();
  });

  it('tells creators and learners the page is for administrators', async () => {
    for (const role of ['creator', 'learner'] as const) {
      const person = await createUser(server, systemAdminToken, { email: `settings-${role}@school.test`, role });
      const { page, context } = await openPage(browser);
      await openSettings(page, server, person);
      await page.getByText("Only your organization's administrators can change its settings.").waitFor();
      expect(await page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
      const refused = await request(server, 'GET', `/api/organizations/${organizationId}/settings`, { token: person.token });
      expect(refused.status).toBe(403);
      await context.close();
    }
  });
});
