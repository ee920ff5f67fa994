/**
 * Proves in a real Chromium that the tests page closes the loop: the owner opens it from the
 * assistant page, writes a case with "New test case" (the answer must stay under 20 characters),
 * runs it with "Run tests" and sees it fail in the "Test results" table with live progress; after
 * the prompt changes ("Be brief."), runs again and sees it pass; "Compare runs" shows the case
 * with both verdicts and both answers. The page passes axe-core and fits 375 px, and someone of
 * the same organization who does not manage the assistant gets the not-found page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIEF_ANSWER, LONG_ANSWER, startAssistantTestWorld, type AssistantTestWorld } from './support/assistant-test-world.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, request } from './support/test-server.js';

describe('the assistant tests page', () => {
  let world: AssistantTestWorld;
  let browser: Browser;

  beforeAll(async () => {
    world = await startAssistantTestWorld('sqlite');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
  });

  it('writes a case, runs it and sees it fail, runs it again after a prompt change and sees it pass, and compares the runs', async () => {
    const { page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, world.server.baseUrl, world.owner.email, world.owner.password);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}`);
    await page.getByRole('link', { name: 'Tests', exact: true }).click();
    await expectOneHeading(page, 'Tests of Biology tutor');
    await page.getByRole('button', { name: 'New test case' }).click();
    await page.getByLabel('Name').fill('Short answer');
    await page.getByLabel("Learner's question").fill('How do cells divide?');
    await page.getByLabel('At most this many characters (optional)').fill('20');
    await page.getByRole('button', { name: 'Save test case' }).click();
    await expect.poll(() => page.getByText('Short answer').count()).toBe(1);

    await page.getByRole('button', { name: 'Run tests' }).click();
    const results = page.getByRole('table', { name: 'Test results' });
    await expect.poll(() => results.getByRole('row', { name: /Short answer/ }).innerText()).toContain('fail');
    await expect.poll(() => page.getByRole('status').innerText()).toContain('completed');
    expect(await results.innerText()).toContain(LONG_ANSWER);

    const changed = await request(world.server, 'PATCH', `/api/assistants/${world.assistantId}`, {
      token: world.owner.token,
      body: { system_prompt: 'Be brief.' },
    });
    expect(changed.status, changed.text).toBe(200);
    await page.getByRole('button', { name: 'Run tests' }).click();
    await expect.poll(() => results.getByRole('row', { name: /Short answer/ }).innerText()).toContain('pass');

    await page.getByRole('button', { name: 'Compare runs' }).click();
    const comparison = page.getByRole('table', { name: 'Cases whose verdict changed' });
    const row = comparison.getByRole('row', { name: /Short answer/ });
    await expect.poll(() => row.innerText()).toContain(BRIEF_ANSWER);
    expect(await row.innerText()).toMatch(/fail[\s\S]*pass/);
    await screenshot(page, 'assistant-tests-compared');
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
  });

  it('fits a phone and passes axe there, and is not found for someone who does not manage the assistant', async () => {
    const { page } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, world.server.baseUrl, world.owner.email, world.owner.password);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
    await expectOneHeading(page, 'Tests of Biology tutor');
    await expect.poll(() => page.getByRole('table', { name: 'Test results' }).count()).toBe(1);
    expect(await horizontalOverflow(page)).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'assistant-tests-phone');
    const other = await createUser(world.server, world.adminToken, { email: 'tests-page-other@merino.test', role: 'creator' });
    const { page: otherPage } = await openPage(browser);
    await logInThroughPage(otherPage, world.server.baseUrl, other.email, other.password);
    await otherPage.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
    await expectOneHeading(otherPage, 'Assistant not found');
  });
});
