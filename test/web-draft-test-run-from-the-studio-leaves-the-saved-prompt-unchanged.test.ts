/**
 * Proves in a real Chromium that "Run tests on this draft" in the studio runs the test cases
 * against the unsaved form: the owner changes the system prompt to "Be brief." without saving,
 * starts the draft run, and a new tab opens the tests page on that run, marked as an unsaved draft,
 * where the length case passes (the brief answer). The saved assistant keeps its prompt, and the
 * studio keeps the unsaved change. An assistant without cases says where to write them instead.
 */
import { describe, expect, it } from 'vitest';
import { BRIEF_ANSWER } from './support/assistant-test-world.js';
import { assistantTestsPageSuite, signedInPage } from './support/assistant-tests-page.js';
import { expectAccessible, expectOneHeading, screenshot } from './support/browser.js';
import { request } from './support/test-server.js';

describe('a draft run from the studio', () => {
  const world = assistantTestsPageSuite();

  it('says where to write cases while there are none, then runs the unsaved form and leaves the saved prompt unchanged', async () => {
    const { page, context, pageErrors } = await signedInPage(world);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}`);
    await expectOneHeading(page, 'Biology tutor');
    await expect.poll(() => page.getByText('Write test cases on the Tests page to run them on an unsaved draft.').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Run tests on this draft' }).count()).toBe(0);

    const created = await request(world.server, 'POST', `/api/assistants/${world.assistantId}/tests`, {
      token: world.owner.token,
      body: {
        name: 'Short answer',
        kind: 'single_turn',
        turns: ['How do cells divide?'],
        expectations: [{ type: 'max_length', characters: 20 }],
      },
    });
    expect(created.status, created.text).toBe(201);
    await page.reload();
    await page.getByLabel('System prompt').fill('Be brief.');
    await screenshot(page, 'studio-run-tests-on-this-draft');
    const opened = context.waitForEvent('page');
    await page.getByRole('button', { name: 'Run tests on this draft' }).click();
    const tests = await opened;
    await tests.waitForURL(/\/assistants\/\d+\/tests\?run=\d+$/);
    await expectOneHeading(tests, 'Tests of Biology tutor');
    await expect.poll(() => tests.getByText('Unsaved draft').count()).toBeGreaterThan(0);
    const row = tests.getByRole('table', { name: 'Test results' }).getByRole('row', { name: /Short answer/ });
    await expect.poll(() => row.innerText()).toContain('pass');
    await row.getByText('Details').click();
    expect(await row.innerText()).toContain(BRIEF_ANSWER);
    await expectAccessible(tests);
    await screenshot(tests, 'assistant-tests-draft-run');

    const saved = await request(world.server, 'GET', `/api/assistants/${world.assistantId}`, { token: world.owner.token });
    expect(saved.body.system_prompt).toBe('You teach biology.');
    expect(await page.getByLabel('System prompt').inputValue()).toBe('Be brief.');
    expect(pageErrors).toEqual([]);
  });
});
