/**
 * Proves the creator's header holds six links: at 1280 px Chat, Assistants, Knowledge bases,
 * Rubrics, Files and Templates stand in one navigation; at 375 px the four materials fold behind a
 * "Materials" disclosure button that the keyboard opens (Enter), whose links Tab reaches in order
 * and Escape closes (focus back on the button). The current page is marked with aria-current at
 * both widths, the header does not scroll sideways, and axe-core finds nothing serious.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow, isFocused } from './support/page-checks.js';

const MATERIALS = ['Knowledge bases', 'Rubrics', 'Files', 'Templates'];

describe('a creator’s header', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    teacher = await createUser(server, await loginAsAdmin(server), { email: 'teacher@merino.test', role: 'creator' });
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  function navigation(page: Page) {
    return page.getByRole('navigation', { name: 'Main' });
  }

  async function focusedText(page: Page): Promise<string> {
    return page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''");
  }

  it('shows all six links at 1280 px, the current one marked', async () => {
    const { context, page, pageErrors } = await openPage(browser, { width: 1280 });
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/files`);
    const links = navigation(page).getByRole('link');
    await expect.poll(() => links.allInnerTexts()).toEqual(['Chat', 'Assistants', ...MATERIALS]);
    expect(await navigation(page).getByRole('button', { name: 'Materials' }).isVisible()).toBe(false);
    expect(await navigation(page).getByRole('link', { name: 'Files' }).getAttribute('aria-current')).toBe('page');
    expect(await navigation(page).getByRole('link', { name: 'Rubrics' }).getAttribute('aria-current')).toBeNull();
    await expectAccessible(page);
    await screenshot(page, 'header-creator-1280');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('reaches all six links by keyboard at 375 px through the Materials button', async () => {
    const { context, page, pageErrors } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/knowledge-bases`);
    const toggle = navigation(page).getByRole('button', { name: 'Materials' });
    await toggle.waitFor();
    await screenshot(page, 'header-creator-375');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect((await page.locator('header').boundingBox())?.height).toBeLessThan(72);
    for (const name of MATERIALS) expect(await navigation(page).getByRole('link', { name }).isVisible()).toBe(false);

    // From the brand, Tab walks Chat, Assistants, then the Materials button.
    await page.locator('header .brand').focus();
    const reached: string[] = [];
    for (let step = 0; step < 3; step += 1) {
      await page.keyboard.press('Tab');
      reached.push(await focusedText(page));
    }
    expect(reached).toEqual(['Chat', 'Assistants', 'Materials▾']);
    expect(await isFocused(toggle)).toBe(true);
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    for (const name of MATERIALS) {
      await page.keyboard.press('Tab');
      expect(await focusedText(page)).toBe(name);
    }
    expect(await navigation(page).getByRole('link', { name: 'Knowledge bases' }).getAttribute('aria-current')).toBe('page');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'header-creator-materials-open-375');

    await page.keyboard.press('Escape');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await isFocused(toggle)).toBe(true);

    // Following a link from the open group goes there, closes the group and marks the new page.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/files$/);
    await page.getByRole('heading', { level: 1, name: 'Files' }).waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await navigation(page).getByRole('link', { name: 'Files', includeHidden: true }).getAttribute('aria-current')).toBe('page');
    expect(await toggle.getAttribute('class')).toContain('here');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
