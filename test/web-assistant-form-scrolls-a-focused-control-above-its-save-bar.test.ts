/**
 * The assistant form's save bar stays at the bottom of the screen. A control that takes focus
 * while it sits behind the bar (tabbed to, or focused by the page) is scrolled above the bar,
 * never left under it (WCAG 2.4.11, focus not obscured), at 1280 and 375 px wide.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, signInWithSessionCookie } from './support/browser.js';
import { createUser, loginAsAdmin, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

/**
 * How far the probed control's bottom edge sits below the save bar's top edge (positive: hidden
 * behind it). Page code is passed as text: the test's TypeScript has no DOM types.
 */
async function overlapWithSaveBar(page: Page): Promise<number> {
  return page.evaluate(
    "document.querySelector('[data-probe]').getBoundingClientRect().bottom - document.querySelector('.save-bar').getBoundingClientRect().top",
  );
}

async function barHeight(page: Page): Promise<number> {
  return page.evaluate("document.querySelector('.save-bar').getBoundingClientRect().height");
}

describe('the assistant form', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    teacher = await createUser(server, await loginAsAdmin(server), { email: 'bar@school.test', role: 'creator' });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  for (const viewport of [
    { width: 1280, height: 400 },
    { width: 375, height: 640 },
  ]) {
    it(`scrolls a control focused behind the save bar above it, at ${viewport.width} px`, async () => {
      const { context, page } = await openPage(browser);
      await page.setViewportSize(viewport);
      await signInWithSessionCookie(context, server.baseUrl, teacher.email, teacher.password);
      await page.goto(`${server.baseUrl}/assistants/new`);
      await page.getByRole('radio', { name: 'Classic' }).check();
      const name = page.getByRole('textbox', { name: 'Name', exact: true });
      await name.fill('Botany helper');
      await page.locator('.save-bar[data-state="dirty"]').waitFor();
      // The name field placed right behind the bar, as a long form leaves its controls near it.
      await name.evaluate((field) => field.setAttribute('data-probe', ''));
      // Scrolled until its bottom edge sits 4 px above the bar's bottom edge, behind the bar.
      const overlap = await overlapWithSaveBar(page);
      await page.evaluate(`window.scrollBy(0, ${overlap - (await barHeight(page)) + 4})`);
      await page.evaluate('document.activeElement && document.activeElement.blur()');
      expect(await overlapWithSaveBar(page)).toBeGreaterThan(0);
      await name.focus();
      expect(await overlapWithSaveBar(page)).toBeLessThanOrEqual(0);
      await context.close();
    });
  }
});
