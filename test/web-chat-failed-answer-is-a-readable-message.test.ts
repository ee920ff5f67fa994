/**
 * A model that fails is a readable message in the conversation (role alert) with the server's
 * words, never a stack trace or a blank: both when the provider refuses after the tool step has
 * streamed (a closing error chunk) and when it cannot be reached at all. The next message works.
 */
import { describe, expect, it } from 'vitest';
import { chatPageSuite, sendMessage, signedInPage } from './support/chat-pages.js';

describe('a failed answer', () => {
  const suite = chatPageSuite();

  it('is shown as a readable alert, and the conversation goes on', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/chat/${suite.world.assistantId}`);
    suite.world.provider.enqueue({ status: 500, errorMessage: 'The fake model is down.' });
    await sendMessage(page, 'How do cells divide?');
    const alert = page.locator('ol[aria-label="Conversation"]').getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toMatch(/^The answer failed: \S/);
    expect(text).not.toMatch(/\bat \S+:\d+|Error:|undefined|\[object/);
    expect(await page.getByRole('button', { name: 'Send' }).isEnabled()).toBe(true);

    suite.world.provider.enqueue({ text: 'Cells divide by mitosis.' });
    await sendMessage(page, 'Try again: how do cells divide?');
    await page.locator('li.assistant .markdown').getByText('Cells divide by mitosis.').waitFor();
    expect(await alert.count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
