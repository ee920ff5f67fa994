/**
 * Proves in a real Chromium that a running test run shows its live progress and a "Stop" button,
 * and that "Stop" ends it: the status line says it stopped and "Run tests" is offered again. The
 * fake model holds its answer to a question containing "until stopped" for longer than the test
 * runs, so the run is still running when Stop is pressed however slow the machine is.
 */
import { describe, expect, it } from 'vitest';
import { assistantTestsPageSuite, ownersTestsPage } from './support/assistant-tests-page.js';
import { expectAccessible } from './support/browser.js';
import { request } from './support/test-server.js';

describe('a running test run', () => {
  const world = assistantTestsPageSuite();

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
    const { page, pageErrors } = await ownersTestsPage(world);
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
