/**
 * Hostile model output in real Chromium: an answer holding `<img src=x onerror=…>`, `<script>`,
 * an iframe, raw `<a href="javascript:…">`, and markdown links to `javascript:`, `data:` and
 * `vbscript:` runs nothing. No flag gets set, no dialog opens, no script, image or iframe reaches
 * the DOM, no link has a dangerous href, and clicking the link texts does nothing. Math still
 * renders (KaTeX), but its `\href` makes no link (trust is off). The reader's own question is shown as text too.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage, signedInPage, startChatPageWorld, type ChatPageWorld } from './support/chat-pages.js';
import { launchBrowser } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';

const HOSTILE_ANSWER = [
  "Look: <img src=x onerror=\"window.__hacked = 'img'\"> and <script>window.__hacked = 'script'</script>.",
  '',
  "[click me](javascript:window.__hacked='link') [data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [vb link](vbscript:msgbox(1))",
  '',
  '<a href="javascript:window.__hacked=\'raw\'">raw link</a> <iframe src="javascript:window.__hacked=\'frame\'"></iframe>',
  '',
  'Area: $\\pi r^2$ and $\\href{javascript:window.__hacked=1}{tex link}$',
].join('\n');

const DANGEROUS_NODES = 'script, img, iframe, object, embed, [onerror], [onload], [onclick], [onmouseover]';

describe('model HTML in the chat page', () => {
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

  it('runs nothing and links nowhere dangerous', async () => {
    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${world.server.baseUrl}/chat/${world.assistantId}`);
    world.provider.enqueue({ text: HOSTILE_ANSWER });
    await sendMessage(page, 'Show me <img src=x onerror="window.__hacked = \'question\'">');
    const answer = page.locator('li.assistant .markdown');
    await answer.getByText('Look:').waitFor();
    await answer.locator('.katex').first().waitFor();

    const conversation = page.locator('ol[aria-label="Conversation"]');
    expect(await conversation.locator(DANGEROUS_NODES).count()).toBe(0);
    expect(await answer.innerText()).toContain('<script>window.__hacked');
    expect(await page.locator('li.user').innerText()).toContain('<img src=x onerror=');
    const hrefs = await answer.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(hrefs.filter((href) => /^\s*(javascript|data|vbscript):/i.test(href))).toEqual([]);
    for (const text of ['click me', 'data link', 'vb link', 'raw link'])
      await answer.getByText(text).filter({ visible: true }).first().click();
    expect(await answer.locator('.katex a').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.__hacked')).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);

    // The stored answer, read back after a reload, is rendered the same careful way.
    await page.reload();
    await page.locator('li.assistant .markdown').getByText('Look:').waitFor();
    expect(await page.locator('ol[aria-label="Conversation"]').locator(DANGEROUS_NODES).count()).toBe(0);
    expect(await page.evaluate<unknown>('window.__hacked')).toBeUndefined();
    await context.close();
  });
});
