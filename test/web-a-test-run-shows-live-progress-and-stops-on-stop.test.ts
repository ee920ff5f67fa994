/**
 * Proves in a real Chromium that a running test run shows its live progress and a "Stop" button,
 * and that "Stop" ends it: the status line says it stopped and "Run tests" is offered again. The
 * fake model holds its answer to a question containing "until stopped" for longer than the test
 * runs, so the run is still running when Stop is pressed however slow the machine is.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssistantTestWorld, type AssistantTestWorld } from './support/assistant-test-world.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { request } from './support/test-server.js';

describe('a running test run', () => {
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

  it('shows its progress with Stop while it runs, and Stop ends it', async () => {
    const created = await request(world.server, 'POST', `/api/assistants/${world.assistantId}/tests`, {
      token: world.owner.token,
      body: {
        name: 'Slow answer',
        kind: 'single_turn',
        turns: ['A question to hold until stopped'],
        expectations: [{ type: 'max_length', characters: 20 }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const { page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, world.server.baseUrl, world.owner.email, world.owner.password);
    await page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
    await expectOneHeading(page, 'Tests of Biology tutor');
    await page.getByRole('button', { name: 'Run tests' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toBe('0 of 1 cases finished');
    expect(await page.getByRole('button', { name: 'Run tests' }).isDisabled()).toBe(true);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('stopped');
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Run tests' }).isEnabled()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
