/**
 * A reader presses Stop while an answer streams: the page stops at once and says so, and after a
 * reload the partial answer is still there, marked as stopped, because the server kept it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptChatPath, sendMessage, signedInPage, startChatPageWorld, type ChatPageWorld } from './support/chat-pages.js';
import { launchBrowser } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PIECES = Array.from({ length: 40 }, (_, index) => `word${index} `);

describe('stopping an answer', () => {
  let world: ChatPageWorld;
  let browser: Browser;

  beforeAll(async () => {
    world = await startChatPageWorld();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
  });

  it('keeps the partial answer through a reload', async () => {
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    await page.goto(`${world.server.baseUrl}/chat/${world.assistantId}`);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 150 });
    await sendMessage(page, 'Tell me everything about cells.');
    const answer = page.locator('li.assistant .markdown');
    await expect.poll(async () => (await answer.textContent()) ?? '', { timeout: 10_000 }).toContain('word2');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped before the answer was complete.').waitFor();
    const shown = ((await answer.textContent()) ?? '').trim();
    expect(shown.length).toBeLessThan(PIECES.join('').trim().length);
    expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true);

    const path = await keptChatPath(page, world.assistantId);
    // The server saves the stopped answer as the request ends; a reload may come a moment before that.
    await expect
      .poll(
        async () => {
          await page.goto(`${world.server.baseUrl}${path}`);
          await page.getByRole('heading', { level: 1, name: 'Biology tutor' }).waitFor();
          return ((await page.locator('li.assistant .markdown').textContent()) ?? '').trim();
        },
        { timeout: 10_000 },
      )
      .toMatch(/^word0 word1 word2/);
    const kept = ((await page.locator('li.assistant .markdown').textContent()) ?? '').trim();
    expect(PIECES.join('').startsWith(kept)).toBe(true);
    expect(kept.length).toBeLessThan(PIECES.join('').trim().length);
    await page.getByText('Stopped before the answer was complete.').waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
