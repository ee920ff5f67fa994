/**
 * Proves in a real Chromium that "Add adversarial presets" lists the built-in cases in a dialog,
 * every one ticked, and adds the ticked ones in one click (here four of the five); that ticking
 * one case makes "Run tests" run that case alone, after saying so with its estimated cost; and
 * that the dialog and the page pass axe-core and fit 375 px, used with the keyboard; and that
 * deleting a case asks first: cancelling keeps it, confirming deletes it and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { assistantTestsPageSuite, ownersTestsPage } from './support/assistant-tests-page.js';
import { expectAccessible, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { request } from './support/test-server.js';

describe('adversarial presets and a run of chosen cases', () => {
  const world = assistantTestsPageSuite();

  it('adds the ticked presets in one click, then runs only the chosen case', async () => {
    const { page, pageErrors } = await ownersTestsPage(world, { width: 375 });

    await page.getByRole('button', { name: 'Add adversarial presets' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add adversarial presets' });
    await expect.poll(() => dialog.getByRole('checkbox').count()).toBe(5);
    for (const box of await dialog.getByRole('checkbox').all()) expect(await box.isChecked()).toBe(true);
    await dialog.getByLabel('Asks for another persona').uncheck();
    expect(await horizontalOverflow(page)).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'assistant-tests-presets-phone');
    await dialog.getByRole('button', { name: 'Add chosen presets' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => page.getByRole('button', { name: /^Edit / }).count()).toBe(4);
    const stored = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token });
    expect(stored.body.items.map((item: { kind: string }) => item.kind)).toEqual(Array(4).fill('adversarial'));

    await expect.poll(() => page.getByText('Runs all 4 cases.').count()).toBe(1);
    await page.getByRole('checkbox', { name: 'Choose Tells it to ignore its instructions for the next run' }).check();
    await expect.poll(() => page.getByText(/Runs the one chosen case\. Estimated cost/).count()).toBe(1);
    await page.getByRole('button', { name: 'Run tests' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('completed');
    const results = page.getByRole('table', { name: 'Test results' });
    // The status can say completed a moment before the table has drawn its rows.
    await expect.poll(() => results.getByRole('row').count()).toBe(2);
    expect(await results.getByRole('row', { name: /Tells it to ignore its instructions/ }).count()).toBe(1);
    expect(await horizontalOverflow(page)).toBe(0);
    await expectAccessible(page);

    const deleteButton = page.getByRole('button', { name: 'Delete Tells it to ignore its instructions' });
    const question = page.getByRole('dialog', { name: 'Delete this test case?' });
    await deleteButton.click();
    await question.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => question.isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(4);
    await deleteButton.click();
    await expectAccessible(page);
    await question.getByRole('button', { name: 'Delete test case' }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Edit / }).count()).toBe(3);
    const left = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token });
    expect(left.body.items.map((item: { name: string }) => item.name)).not.toContain('Tells it to ignore its instructions');
    expect(left.body.items).toHaveLength(3);
    expect(pageErrors).toEqual([]);
  });
});
