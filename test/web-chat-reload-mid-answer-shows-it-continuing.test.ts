/**
 * An answer belongs to its chat, not to the page: a reload mid-answer shows the answer continuing
 * from where it is, then complete (never "Stopped before the answer was complete."), and a second
 * browser context opening the same chat follows it live to the end too.
 */
import { describe, expect, it } from 'vitest';
import { lastContentGate } from './fakes/fake-openai-server.js';
import { expectAccessible, screenshot } from './support/browser.js';
import { chatPageSuite, keptChatPath, sendMessage, signedInPage } from './support/chat-pages.js';
import { horizontalOverflow } from './support/page-checks.js';

const PIECES = Array.from({ length: 60 }, (_, index) => `word${index} `);
const WHOLE = PIECES.join('').trim();

describe('reloading mid-answer', () => {
  const suite = chatPageSuite();

  it('shows the answer continuing after a reload, and in a second browser context, then complete', { timeout: 90_000 }, async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    // The last piece waits until the page has been seen mid-answer, however slow the machine.
    const { lastContentReleased, release: releaseLast } = lastContentGate();
    suite.world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 120, lastContentReleased });
    await sendMessage(page, 'Tell me everything about cells.');
    const answer = page.locator('li.assistant .markdown');
    await expect.poll(async () => (await answer.textContent()) ?? '', { timeout: 10_000 }).toContain('word2');
    const path = await keptChatPath(page, suite.world.assistantId);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Biology tutor' }).waitFor();
    // Still running after the reload: the Stop button is back, and the words keep coming.
    await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 10_000 });
    const afterReload = ((await answer.textContent()) ?? '').trim();
    expect(afterReload.length).toBeLessThan(WHOLE.length);
    // Mid-rejoin, at a laptop's width and a phone's: no serious or critical axe violation, no sideways scrolling.
    await expectAccessible(page);
    await page.setViewportSize({ width: 375, height: 800 });
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'i29-reload-mid-answer-375');
    await page.setViewportSize({ width: 1280, height: 900 });
    releaseLast();

    const second = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await second.page.goto(`${suite.world.server.baseUrl}${path}`);
    const secondAnswer = second.page.locator('li.assistant .markdown');
    await expect.poll(async () => ((await secondAnswer.textContent()) ?? '').trim(), { timeout: 20_000 }).toBe(WHOLE);
    await expect.poll(async () => ((await answer.textContent()) ?? '').trim(), { timeout: 20_000 }).toBe(WHOLE);
    await page.getByRole('button', { name: 'Send' }).waitFor();
    expect(await page.getByText('Stopped before the answer was complete.').count()).toBe(0);
    await page.screenshot({ path: '/tmp/i29-reload-complete.png', fullPage: true });

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Biology tutor' }).waitFor();
    await expect.poll(async () => ((await answer.textContent()) ?? '').trim(), { timeout: 10_000 }).toBe(WHOLE);
    expect(pageErrors).toEqual([]);
    expect(second.pageErrors).toEqual([]);
    await second.context.close();
    await context.close();
  });
});
