/**
 * A learner asks an assistant that searches a knowledge base and grades with a rubric. In real
 * Chromium, against the fake provider: the sources name each document once, open to the passages
 * used (section, page and text), never list the rubric or the passage under the assistant's least
 * similarity, the model's `[1]` becomes a link to passage 1, and an answer stopped mid-stream keeps
 * its sources, also after a reload; "Show in context" opens a passage among its neighbours in the
 * document. axe finds nothing serious at 1280 and 375 px.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chatPageSuite, keptChatPath, sendMessage, signedInPage } from './support/chat-pages.js';
import { expectAccessible, screenshot } from './support/browser.js';
import { horizontalOverflow, isFocused } from './support/page-checks.js';
import { addSourcedAssistant, QUESTION, WEAK_PASSAGE } from './support/sourced-assistant.js';

const SLOW_PIECES = Array.from({ length: 40 }, (_, index) => `word${index} `);

async function expectGroupedSources(page: Page): Promise<void> {
  const sources = page.getByRole('region', { name: 'Sources' }).last();
  await sources.waitFor();
  const documents = sources.locator(':scope > ol > li');
  expect(await documents.count()).toBe(1);
  expect(await documents.first().innerText()).toContain('photosynthesis.md');
  const text = await sources.innerText();
  expect(text).not.toContain('cells.md');
  expect(text).not.toMatch(/rubric/i);
  await sources.getByText('Show the 2 passages used').click();
  const passages = sources.locator('ol.passages > li');
  expect(await passages.count()).toBe(2);
  const shown = (await passages.allInnerTexts()).join('\n');
  expect(shown).toContain('Light reactions');
  expect(shown).toContain('Calvin cycle');
  expect(shown).toMatch(/page 2/);
  expect(shown).toContain('chlorophyll absorbs light');
  expect(shown).not.toContain(WEAK_PASSAGE.slice(0, 30));
}

describe('the sources of a chat answer in the browser', () => {
  const suite = chatPageSuite();

  it('are grouped by document, show their passage, exclude the rubric and anything under the threshold, and survive Stop', async () => {
    const { assistantId } = await addSourcedAssistant(suite.world.server, suite.world.adminToken);
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${assistantId}`);
    await page.getByRole('heading', { level: 1, name: 'Plant tutor' }).waitFor();

    // A whole answer that cites its first passage.
    suite.world.provider.enqueue({ text: 'Plants capture light first [1], then fix carbon [2]; see also [7] and `[1]`.' });
    await sendMessage(page, QUESTION);
    await expectGroupedSources(page);
    const citation = page.locator('li.assistant .markdown a.citation', { hasText: '[1]' });
    expect(await citation.count()).toBe(1);
    // A number with no source, and one inside code, stay text.
    expect(await page.locator('li.assistant .markdown a.citation').count()).toBe(2);
    expect(await page.locator('li.assistant .markdown code').innerText()).toBe('[1]');
    await citation.click();
    const target = page.locator(`[id="${(await citation.getAttribute('href'))!.slice(1)}"]`);
    // Passage 1 is the best match, whichever of the two that is.
    expect(await target.innerText()).toMatch(/^\[1\]\s+section “(Light reactions|Calvin cycle)”/);
    await expect.poll(() => target.isVisible()).toBe(true);
    expect(await isFocused(target)).toBe(true);
    // The learner opens passage 1 in its document: both passages, in document order, the cited one marked.
    const showContext = target.getByRole('button', { name: 'Show in context' });
    await showContext.click();
    expect(await target.getByRole('button', { name: 'Hide the context' }).getAttribute('aria-expanded')).toBe('true');
    const neighbours = target.locator('ol.neighbours > li');
    await expect.poll(() => neighbours.count()).toBe(2);
    expect(await target.getByText('photosynthesis.md, 2 passages in all').count()).toBe(1);
    expect((await neighbours.allInnerTexts()).join('\n')).toMatch(/chlorophyll absorbs light[\s\S]*Calvin cycle is the second stage/);
    expect(await target.locator('ol.neighbours > li.cited').innerText()).toMatch(/^Cited:/);
    await expectAccessible(page);
    await screenshot(page, 'chat-sources-grouped-1280');

    // A second question, stopped while it streams: its sources stay, also after a reload.
    const path = await keptChatPath(page, assistantId);
    // Twenty pieces, then nothing until the server gives up: Stop always comes mid-answer.
    suite.world.provider.enqueue({ chunks: SLOW_PIECES, chunkDelayMs: 150, hangAfterChunks: 20 });
    await sendMessage(page, QUESTION);
    const streaming = page.locator('li.assistant .markdown').last();
    await expect.poll(async () => (await streaming.textContent()) ?? '', { timeout: 10_000 }).toContain('word2');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped before the answer was complete.').waitFor();
    await expectGroupedSources(page);
    await expect
      .poll(
        async () => {
          await page.goto(`${suite.world.server.baseUrl}${path}`);
          await page.getByRole('heading', { level: 1, name: 'Plant tutor' }).waitFor();
          return page.getByText('Stopped before the answer was complete.').count();
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(await page.getByRole('region', { name: 'Sources' }).count()).toBe(2);
    await expectGroupedSources(page);
    expect(pageErrors).toEqual([]);
    await context.close();

    // The same chat on a phone.
    const phone = await signedInPage(suite.browser, suite.world, suite.world.learner, { width: 375 });
    await phone.page.goto(`${suite.world.server.baseUrl}${path}`);
    await phone.page.getByRole('heading', { level: 1, name: 'Plant tutor' }).waitFor();
    await expectGroupedSources(phone.page);
    expect(await horizontalOverflow(phone.page)).toBe(0);
    await expectAccessible(phone.page);
    await screenshot(phone.page, 'chat-sources-grouped-375');
    expect(phone.pageErrors).toEqual([]);
    await phone.context.close();
  });
});
