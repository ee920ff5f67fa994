/**
 * A learner starts a chat from /chat and asks a question. In real Chromium, against the fake
 * provider, the tool step ("Single file") shows up, with its state, before any answer text; the
 * answer then streams in (at least two different partial texts are seen before the whole one);
 * the thinking is in a collapsed "Thinking" section; the sources name the file; the tool activity
 * folds away once the answer is done; and the address becomes the kept chat's own without a reload.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTES_FILE_NAME } from './support/chat-world.js';
import { keptChatPath, sendMessage, signedInPage, startChatPageWorld, type ChatPageWorld } from './support/chat-pages.js';
import { expectAccessible, expectOneHeading, launchBrowser } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';

interface Sample {
  steps: string;
  answer: string;
}

const ANSWER_PIECES = ['Cells ', 'divide ', 'by ', 'mitosis, ', 'which ', 'copies ', 'the ', 'chromosomes.'];

// Records what the page shows at every change, inside the page, so no state between two polls is missed.
const RECORD_SAMPLES = `(() => {
  window.__samples = [];
  const take = () => {
    const list = document.querySelector('ul[aria-label="Tool activity"]');
    const answer = document.querySelector('li.assistant .markdown');
    window.__samples.push({ steps: list ? list.textContent : '', answer: answer ? answer.textContent.trim() : '' });
  };
  new MutationObserver(take).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
})()`;

describe('a chat answer in the browser', () => {
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

  it('shows the tool step first, then the answer streaming in, thinking, and the file as a source', async () => {
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
    await expectOneHeading(page, 'Chat');
    await page.getByRole('link', { name: 'Start a chat with Biology tutor' }).click();
    await page.waitForURL(new RegExp(`/chat/${world.assistantId}$`));
    await expectOneHeading(page, 'Biology tutor');

    world.provider.enqueue({ delayMs: 400, chunks: ANSWER_PIECES, chunkDelayMs: 120, reasoning: ['The notes ', 'say mitosis.'] });
    await page.evaluate(RECORD_SAMPLES);
    await sendMessage(page, 'How do cells divide?');

    const answer = page.locator('li.assistant .markdown');
    await expect.poll(async () => (await answer.textContent())?.trim(), { timeout: 10_000 }).toBe(ANSWER_PIECES.join(''));
    const samples = await page.evaluate<Sample[]>('window.__samples');
    const firstWithAnswer = samples.findIndex((sample) => sample.answer !== '');
    const stepBeforeAnswer = samples.findIndex((sample) => sample.steps.includes('Single file') && sample.answer === '');
    expect(stepBeforeAnswer).toBeGreaterThanOrEqual(0);
    expect(stepBeforeAnswer).toBeLessThan(firstWithAnswer);
    const partials = new Set(samples.map((sample) => sample.answer).filter((text) => text !== '' && text !== ANSWER_PIECES.join('')));
    expect(partials.size).toBeGreaterThanOrEqual(2);

    // Done: the activity folds away, the sources name the file, the thinking waits behind its summary.
    const activity = page.getByRole('list', { name: 'Tool activity' });
    await expect.poll(() => activity.isVisible()).toBe(false);
    await page.getByText('Tool activity: 1 step').click();
    const step = activity.getByRole('listitem');
    expect(await step.innerText()).toMatch(/Single file\s+done\s+\d+(\.\d)? m?s/);
    const sources = page.getByRole('region', { name: 'Sources' });
    expect(await sources.getByRole('listitem').allInnerTexts()).toEqual([expect.stringContaining(NOTES_FILE_NAME)]);
    const thinking = page.getByText('The notes say mitosis.');
    expect(await thinking.isVisible()).toBe(false);
    await page.getByText('Thinking', { exact: true }).click();
    expect(await thinking.isVisible()).toBe(true);

    // The address is now the kept chat's, reached without loading the page again.
    const path = await keptChatPath(page, world.assistantId);
    expect(path).toMatch(new RegExp(`^/chat/${world.assistantId}/\\d+$`));
    // A reload would have dropped the recorder the test put into the page.
    expect(await page.evaluate<boolean>('Array.isArray(window.__samples)')).toBe(true);
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Chats' }).getByRole('link').allInnerTexts())
      .toContainEqual(expect.stringContaining('How do cells divide'));
    expect(await page.getByRole('button', { name: 'Regenerate' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Copy the answer' }).count()).toBe(1);
    await expectAccessible(page);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
