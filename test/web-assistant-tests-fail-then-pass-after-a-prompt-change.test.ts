/**
 * Proves in a real Chromium that the tests page closes the loop: the owner opens it from the
 * assistant page, writes two cases with "New test case" (one whose answer must stay under 20
 * characters, one that must contain "mitosis"), runs them with "Run tests" and sees the first fail
 * in the "Test results" table with live progress; after the prompt changes ("Be brief."), runs
 * again and sees it pass; "Compare runs" (the last two runs by default) lists only that case, with
 * both verdicts and both answers side by side. The page passes axe-core and fits 375 px, and
 * someone of the same organization who does not manage it, a learner and someone of another
 * organization each get the not-found page.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { BRIEF_ANSWER, LONG_ANSWER } from './support/assistant-test-world.js';
import { assistantTestsPageSuite, ownersTestsPage, signedInPage } from './support/assistant-tests-page.js';
import { expectAccessible, expectOneHeading, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { createUser, request } from './support/test-server.js';
import { insertOrganization } from '../src/store/organizations-repository.js';

async function writeCase(page: Page, name: string, fill: (page: Page) => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: 'New test case' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel("Learner's question").fill('How do cells divide?');
  await fill(page);
  await page.getByRole('button', { name: 'Save test case' }).click();
  await expect.poll(() => page.getByRole('button', { name: `Edit ${name}` }).count()).toBe(1);
}

describe('the assistant tests page', () => {
  const world = assistantTestsPageSuite();

  it('writes cases, runs them and sees one fail, runs again after a prompt change and sees it pass, and compare lists only that case', async () => {
    const { page, pageErrors } = await signedInPage(world);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}`);
    await page.getByRole('link', { name: 'Tests', exact: true }).click();
    await expectOneHeading(page, 'Tests of Biology tutor');
    await writeCase(page, 'Short answer', async () => {
      await page.getByLabel('The answer…').selectOption('max_length');
      await page.getByLabel('Most characters').fill('20');
    });
    await writeCase(page, 'Names mitosis', async () => {
      await page.getByLabel('Phrases').fill('mitosis');
    });
    await expect.poll(() => page.getByText(/Estimated cost .*: 2 model calls/).count()).toBe(1);

    await page.getByRole('button', { name: 'Run tests' }).click();
    const results = page.getByRole('table', { name: 'Test results' });
    const shortRow = results.getByRole('row', { name: /Short answer/ });
    await expect.poll(() => shortRow.innerText()).toContain('fail');
    await expect.poll(() => page.getByRole('status').innerText()).toContain('completed');
    await shortRow.getByText('Details').click();
    expect(await shortRow.innerText()).toContain(LONG_ANSWER);
    expect(await page.getByText(/Measured cost \$/).count()).toBe(1);

    const changed = await request(world.server, 'PATCH', `/api/assistants/${world.assistantId}`, {
      token: world.owner.token,
      body: { system_prompt: 'Be brief.' },
    });
    expect(changed.status, changed.text).toBe(200);
    await page.getByRole('button', { name: 'Run tests' }).click();
    await expect.poll(() => results.getByRole('row', { name: /Short answer/ }).innerText()).toContain('pass');
    await expect.poll(() => page.getByRole('status').innerText()).toContain('completed');

    await page.getByRole('button', { name: 'Compare runs' }).click();
    const comparison = page.getByRole('table', { name: 'Cases whose verdict changed' });
    const row = comparison.getByRole('row', { name: /Short answer/ });
    await expect.poll(() => row.innerText()).toContain(BRIEF_ANSWER);
    expect(await row.innerText()).toMatch(/fail[\s\S]*pass/);
    expect(await row.innerText()).toContain(LONG_ANSWER);
    // "Names mitosis" passed both times: only the case whose verdict changed is listed (plus the header row).
    expect(await comparison.getByRole('row').count()).toBe(2);
    await screenshot(page, 'assistant-tests-compared');
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
  });

  it('fits a phone and passes axe there, and is not found for a same-organization creator, a learner and another organization', async () => {
    const { page } = await ownersTestsPage(world, { width: 375 });
    await expect.poll(() => page.getByRole('table', { name: 'Test results' }).count()).toBe(1);
    await page.getByRole('table', { name: 'Test results' }).getByText('Details').first().click();
    expect(await horizontalOverflow(page)).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'assistant-tests-phone');

    const otherOrganization = await insertOrganization(world.server.store.db, 'tests-page-b', 'Organization B');
    const outsiders = [
      await createUser(world.server, world.adminToken, { email: 'tests-page-other@merino.test', role: 'creator' }),
      await createUser(world.server, world.adminToken, { email: 'tests-page-learner@merino.test', role: 'learner' }),
      await createUser(world.server, world.adminToken, {
        email: 'tests-page-elsewhere@merino.test',
        role: 'creator',
        organization_id: otherOrganization,
      }),
    ];
    for (const outsider of outsiders) {
      const { page: otherPage, context } = await signedInPage(world, {}, outsider);
      await otherPage.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
      await expectOneHeading(otherPage, 'Assistant not found');
      expect(await otherPage.getByRole('button', { name: 'Run tests' }).count()).toBe(0);
      await context.close();
    }
  });
});
