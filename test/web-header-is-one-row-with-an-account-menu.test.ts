/**
 * The header on a phone and a desktop: one row at 375 px (brand, navigation, the account menu),
 * with API keys, language, theme and "Log out" in the account menu. The menu opens from the
 * keyboard, Escape closes it and gives focus back to its button, its language choice changes the
 * page, and the page passes axe-core with the menu open at both widths.
 */
import { describe, expect, it } from 'vitest';
import { chatPageSuite, signedInPage } from './support/chat-pages.js';
import { expectAccessible, openAccountMenu, screenshot } from './support/browser.js';
import { horizontalOverflow, isFocused } from './support/page-checks.js';

const ACCOUNT_MENU = /^Account and settings:/;

describe('the header', () => {
  const suite = chatPageSuite();

  for (const width of [375, 1280]) {
    it(`is one row at ${width} px and holds the account's settings in a menu`, async () => {
      const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner, { width });
      const header = page.locator('header');
      const navigation = page.getByRole('navigation', { name: 'Main' });
      const toggle = page.getByRole('button', { name: ACCOUNT_MENU });
      await toggle.waitFor();
      const rows = await Promise.all([header.locator('.brand'), navigation, toggle].map((part) => part.boundingBox()));
      const tops = rows.map((box) => Math.round((box?.y ?? -100) + (box?.height ?? 0) / 2));
      expect(Math.max(...tops) - Math.min(...tops)).toBeLessThan(12);
      expect((await header.boundingBox())?.height).toBeLessThan(72);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0);

      await toggle.focus();
      await page.keyboard.press('Enter');
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      await page.getByRole('link', { name: 'API keys' }).waitFor();
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      await expectAccessible(page);
      await screenshot(page, `header-account-menu-${width}`);
      await page.keyboard.press('Escape');
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await isFocused(toggle)).toBe(true);
      expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0);

      await openAccountMenu(page);
      await page.getByRole('combobox', { name: 'Language' }).selectOption('es');
      await expect.poll(() => page.locator('header nav a').allInnerTexts()).toContain('Asistentes');
      expect(pageErrors).toEqual([]);
      await context.close();
    });
  }
});
