/**
 * What the chat page's browser tests share: the chats world (a fake provider and a published
 * assistant that reads a file, so answers carry a real tool step and source) with a learner who
 * may chat with it, signing in through the login page, and sending a message as a person does.
 */
import type { Browser, Page } from 'playwright-core';
import type { ScriptedReply } from '../fakes/fake-openai-server.js';
import { startChatWorld, type ChatWorld } from './chat-world.js';
import { logInThroughPage, openPage, type OpenedPage, type PageOptions } from './browser.js';
import { createUser, type CreatedUser } from './test-server.js';

export interface ChatPageWorld extends ChatWorld {
  learner: CreatedUser;
}

export async function startChatPageWorld(): Promise<ChatPageWorld> {
  const world = await startChatWorld('sqlite');
  const learner = await createUser(world.server, world.adminToken, { email: 'learner@merino.test', role: 'learner' });
  return Object.assign(world, { learner });
}

/** A fresh browser context signed in as `user`. */
export async function signedInPage(
  browser: Browser,
  world: ChatWorld,
  user: { email: string; password: string },
  options: PageOptions = {},
): Promise<OpenedPage> {
  const opened = await openPage(browser, options);
  await logInThroughPage(opened.page, world.server.baseUrl, user.email, user.password);
  return opened;
}

/** Types a message into the textbox "Message" and presses Enter, as a reader does. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** The `/chat/{assistantId}/{chatId}` the page moved to once the chat was kept. */
export async function keptChatPath(page: Page, assistantId: number): Promise<string> {
  await page.waitForURL(new RegExp(`/chat/${assistantId}/\\d+$`));
  return new URL(page.url()).pathname;
}

/** An answer with what the chat page renders: headings, a list, a table, code, math and thinking. */
export const RICH_ANSWER: ScriptedReply = {
  reasoning: ['The notes mention mitosis; ', 'a table compares the two processes best.'],
  text: [
    '## Cell division',
    '',
    'Cells divide in two ways:',
    '',
    '1. **Mitosis** makes two identical cells.',
    '2. **Meiosis** makes four gametes.',
    '',
    '| Process | Daughter cells | Ploidy |',
    '| --- | --- | --- |',
    '| Mitosis | 2 | diploid |',
    '| Meiosis | 4 | haploid |',
    '',
    '```python',
    'def daughters(process):',
    '    return 2 if process == "mitosis" else 4',
    '```',
    '',
    'After $t$ divisions a population has grown to',
    '',
    '$$N(t) = N_0 \\cdot 2^t$$',
  ].join('\n'),
};
