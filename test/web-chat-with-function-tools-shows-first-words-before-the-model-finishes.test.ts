/**
 * Issue 29 item 1 in real Chromium: an assistant with function tools shows its first words before
 * the model has finished answering. The fake model streams a prose answer word by word and holds its
 * last word back until the test lets it go; while it is held, the page already shows the words that
 * came, with the answer still busy; once it is let go the whole answer shows. At 1280 and 375 px, axe
 * finds no serious or critical violation in either state.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { lastContentGate } from './fakes/fake-openai-server.js';
import { chatPageSuite, sendMessage, signedInPage } from './support/chat-pages.js';
import { expectAccessible, expectOneHeading, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { request } from './support/test-server.js';

const ANSWER_PIECES = ['Photosynthesis ', 'turns ', 'light, ', 'water ', 'and ', 'carbon ', 'dioxide ', 'into ', 'sugar.'];
const ANSWER = ANSWER_PIECES.join('');
const ASSISTANT_NAME = 'Weather-aware tutor';

describe('an assistant with function tools in the browser', () => {
  const suite = chatPageSuite();
  let assistantId = 0;

  beforeAll(async () => {
    const { server, adminToken } = suite.world;
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: ASSISTANT_NAME,
        system_prompt: 'You teach science.',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [{ type: 'weather' }] },
      },
    });
    expect(created.status, created.text).toBe(201);
    assistantId = created.body.id as number;
    await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: adminToken, body: { published: true } });
  });

  it.each([1280, 375])('shows its first words before the model has finished answering, at %i px', async (width) => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner, { width });
    await page.goto(`${suite.world.server.baseUrl}/chat/${assistantId}`);
    await expectOneHeading(page, ASSISTANT_NAME);

    const { lastContentReleased, release } = lastContentGate();
    suite.world.provider.enqueue({ chunks: ANSWER_PIECES, chunkDelayMs: 40, lastContentReleased });
    try {
      await sendMessage(page, 'What is photosynthesis?');
      const answer = page.locator('li.assistant .markdown');
      // The model still holds its last word: every word before it shows, and the answer is still under way.
      const allButLast = ANSWER_PIECES.slice(0, -1).join('').trim();
      await expect.poll(async () => (await answer.textContent())?.trim(), { timeout: 10_000 }).toBe(allButLast);
      expect(await page.locator('article[aria-busy="true"]').count()).toBe(1);
      await screenshot(page, `chat-function-tools-first-words-${width}`);
      await expectAccessible(page);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

      release();
      await expect.poll(async () => (await answer.textContent())?.trim(), { timeout: 10_000 }).toBe(ANSWER);
      await expect.poll(() => page.locator('article[aria-busy="true"]').count()).toBe(0);
      await expectAccessible(page);
      expect(pageErrors).toEqual([]);
    } finally {
      release();
      await context.close();
    }
  });
});
