/**
 * What the chat page's browser tests share: the chats world (a fake provider and a published
 * assistant that reads a file, so answers carry a real tool step and source) with a learner who
 * may chat with it, signing in through the login page, and sending a message as a person does.
 */
import type { Browser, Page } from 'playwright-core';
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
