/**
 * File names in a model's answer stay text: "photosynthesis.md", "notes.py" or "data.zip" look
 * like domain names to a fuzzy linkifier, which made them links to http://photosynthesis.md.
 * Only text written with a scheme (https://…) or as a markdown link becomes a link, and a bare
 * e-mail address or `www.` name stays text too.
 */
import { describe, expect, it } from 'vitest';
import { chatPageSuite, sendMessage, signedInPage } from './support/chat-pages.js';

const ANSWER = [
  'Read photosynthesis.md first, then run notes.py and unpack data.zip.',
  'Write to teacher@example.org or see www.example.org.',
  'The article is at https://example.org/leaves and [the course page](https://example.org/course).',
].join('\n\n');

describe('file names in an answer', () => {
  const suite = chatPageSuite();

  it('are text, while written links still link', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    suite.world.provider.enqueue({ text: ANSWER });
    await sendMessage(page, 'What should I read?');
    const answer = page.locator('li.assistant .markdown');
    await answer.getByText('the course page').waitFor();

    const links = await answer
      .locator('a')
      .evaluateAll((anchors) => anchors.map((anchor) => [anchor.textContent, anchor.getAttribute('href')]));
    expect(links).toEqual([
      ['https://example.org/leaves', 'https://example.org/leaves'],
      ['the course page', 'https://example.org/course'],
    ]);
    expect(await answer.innerText()).toContain('Read photosynthesis.md first, then run notes.py and unpack data.zip.');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
