/**
 * The studio's save bar in a real Chromium, on a form far taller than the screen: after creating
 * an assistant the new page says "Created and saved" where the reader is looking; an edit says
 * "Unsaved changes", a save says "Saved" — always inside the visible screen, at 375 and 1280 px;
 * a refused save says so in the bar, and its button takes focus to the field. Leaving with
 * unsaved changes asks first: "Cancel" stays with the edits, "Leave without saving" leaves and
 * nothing is saved. What was typed before the form's choices (the tool catalogue) arrived stays an
 * unsaved change. A control that takes focus while it sits behind the bar is scrolled above it,
 * never left under it (WCAG 2.4.11, focus not obscured). axe-core finds no serious or critical
 * violation with the bar showing.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { request } from './support/test-server.js';
import { expectAccessible, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { creatorsPage, creatorStudioSuite } from './support/studio-suite.js';
import { isFocused, waitForHeading } from './support/page-checks.js';

async function expectInView(page: Page, target: Locator): Promise<void> {
  const box = await target.boundingBox();
  const viewport = page.viewportSize();
  expect(box).not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(viewport!.height);
}

function barStatus(page: Page): Locator {
  return page.locator('.save-bar [role="status"]');
}

/**
 * How far the probed control's bottom edge sits below the save bar's top edge (positive: hidden
 * behind it). Page code is passed as text: the test's TypeScript has no DOM types.
 */
async function overlapWithSaveBar(page: Page): Promise<number> {
  return page.evaluate(
    "document.querySelector('[data-probe]').getBoundingClientRect().bottom - document.querySelector('.save-bar').getBoundingClientRect().top",
  );
}

describe('the studio save bar', () => {
  const studio = creatorStudioSuite('maker@school.test');

  for (const width of [375, 1280]) {
    it(`shows each save where the reader is, at ${width} px`, async () => {
      const { context, page, pageErrors } = await creatorsPage(studio, { width });
      await page.goto(`${studio.server.baseUrl}/assistants/new`);
      await page.getByLabel('Multi-tool', { exact: true }).check();
      await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`Tall form ${width}`);
      await expect.poll(() => barStatus(page).innerText()).toBe('Unsaved changes');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/assistants\/\d+$/);
      await expect.poll(() => barStatus(page).innerText()).toBe('Created and saved');
      await expectInView(page, barStatus(page));
      expect(await page.evaluate<number>('document.documentElement.scrollHeight')).toBeGreaterThan(page.viewportSize()!.height);

      await page.getByRole('textbox', { name: 'Description' }).fill('Answers with care.');
      await expect.poll(() => barStatus(page).innerText()).toBe('Unsaved changes');
      await expectInView(page, page.getByRole('button', { name: 'Save', exact: true }));
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => barStatus(page).innerText()).toBe('Saved');
      await expectInView(page, barStatus(page));
      await expectAccessible(page);
      await screenshot(page, `studio-save-bar-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    });
  }

  for (const viewport of [
    { width: 1280, height: 400 },
    { width: 375, height: 640 },
  ]) {
    it(`scrolls a control focused behind it above it, at ${viewport.width} px`, async () => {
      const { context, page } = await openPage(studio.browser, { width: viewport.width });
      await page.setViewportSize(viewport);
      await logInThroughPage(page, studio.server.baseUrl, studio.creator.email, studio.creator.password);
      await page.goto(`${studio.server.baseUrl}/assistants/new`);
      await page.getByRole('radio', { name: 'Classic' }).check();
      const name = page.getByRole('textbox', { name: 'Name', exact: true });
      await name.fill('Botany helper');
      await expect.poll(() => barStatus(page).innerText()).toBe('Unsaved changes');
      // The name field placed right behind the bar, as a long form leaves its controls near it:
      // scrolled until its bottom edge sits 4 px above the bar's bottom edge.
      await name.evaluate((field) => field.setAttribute('data-probe', ''));
      const overlap = await overlapWithSaveBar(page);
      const barHeight = await page.evaluate<number>("document.querySelector('.save-bar').getBoundingClientRect().height");
      await page.evaluate(`window.scrollBy(0, ${overlap - barHeight + 4})`);
      await page.evaluate('document.activeElement && document.activeElement.blur()');
      expect(await overlapWithSaveBar(page)).toBeGreaterThan(0);
      await name.focus();
      expect(await overlapWithSaveBar(page)).toBeLessThanOrEqual(0);
      await context.close();
    });
  }

  it('keeps what was typed before the form’s choices arrived as an unsaved change', async () => {
    const { context, page, pageErrors } = await creatorsPage(studio);
    // The tool catalogue held back until the name is typed, as on a slow connection.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/lamb/v1/completions/list', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${studio.server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Typed early');
    await expect.poll(() => barStatus(page).innerText()).toBe('Unsaved changes');
    release();
    // The catalogue's fields (the prompt processor among them) are shown once it has arrived.
    await page.getByRole('combobox', { name: 'Prompt processor' }).waitFor();
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    expect(await barStatus(page).innerText()).toBe('Unsaved changes');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('says in the bar when the server refuses, and takes focus to the field', async () => {
    const created = await request(studio.server, 'POST', '/api/assistants', { token: studio.creator.token, body: { name: 'Refusable' } });
    const { context, page } = await creatorsPage(studio);
    await page.goto(`${studio.server.baseUrl}/assistants/${created.body.id}`);
    await waitForHeading(page, 'Refusable');
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await name.fill('x'.repeat(300));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => barStatus(page).innerText()).toContain('Some fields need attention');
    await page.getByRole('textbox', { name: 'Description' }).focus();
    await page.getByRole('button', { name: 'Go to the first problem' }).click();
    expect(await isFocused(name)).toBe(true);
    await context.close();
  });

  it('asks before leaving with unsaved changes, and saves nothing when told to leave', async () => {
    const created = await request(studio.server, 'POST', '/api/assistants', { token: studio.creator.token, body: { name: 'Guarded' } });
    const { context, page, pageErrors } = await creatorsPage(studio);
    await page.goto(`${studio.server.baseUrl}/assistants/${created.body.id}`);
    await waitForHeading(page, 'Guarded');
    expect(await barStatus(page).innerText()).toBe('');

    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Guarded, edited');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(new URL(page.url()).pathname).toBe(`/assistants/${created.body.id}`);
    expect(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Guarded, edited');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
    await dialog.getByRole('button', { name: 'Leave without saving' }).click();
    await page.waitForURL(/\/chat$/);
    expect((await request(studio.server, 'GET', `/api/assistants/${created.body.id}`, { token: studio.creator.token })).body.name).toBe(
      'Guarded',
    );
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
