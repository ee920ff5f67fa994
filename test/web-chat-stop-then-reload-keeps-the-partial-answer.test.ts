/**
 * A reader presses Stop while an answer streams: the page stops at once and says so, and after a
 * reload the partial answer is still there, marked as stopped, because the server kept it.
 */
import { describe, expect, it } from 'vitest';
import { chatPageSuite, keptChatPath, sendMessage, signedInPage } from './support/chat-pages.js';

const PIECES = Array.from({ length: 40 }, (_, index) => `word${index} `);

describe('stopping an answer', () => {
  const suite = chatPageSuite();

  it('keeps the partial answer through a reload', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    // Twenty pieces, then nothing until the server gives up: Stop always comes mid-answer.
    suite.world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 150, hangAfterChunks: 20 });
    await sendMessage(page, 'Tell me everything about cells.');
    const answer = page.locator('li.assistant .markdown');
    await expect.poll(async () => (await answer.textContent()) ?? '', { timeout: 10_000 }).toContain('word2');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped before the answer was complete.').waitFor();
    const shown = ((await answer.textContent()) ?? '').trim();
    expect(shown.length).toBeLessThan(PIECES.join('').trim().length);
    await page.getByRole('button', { name: 'Send' }).waitFor();

    const path = await keptChatPath(page, suite.world.assistantId);
    // The server saves the stopped answer as the request ends; a reload may come a moment before that.
    await expect
      .poll(
        async () => {
          await page.goto(`${suite.world.server.baseUrl}${path}`);
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
