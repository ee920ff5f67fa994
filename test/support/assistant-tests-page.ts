/**
 * What the browser suites of an assistant's tests page share: the assistant-tests world
 * (test/support/assistant-test-world.ts) with a Chromium for a describe block, and pages signed in
 * through the login page, the owner's opened on the tests page of its "Biology tutor".
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startAssistantTestWorld, type AssistantTestWorld } from './assistant-test-world.js';
import { expectOneHeading, launchBrowser, logInThroughPage, openPage, type OpenedPage, type PageOptions } from './browser.js';

export interface AssistantTestsPageWorld extends AssistantTestWorld {
  browser: Browser;
}

/** Registers the describe block's beforeAll and afterAll; the fields are set once beforeAll has run. */
export function assistantTestsPageSuite(): AssistantTestsPageWorld {
  const world = {} as AssistantTestsPageWorld;
  let started: AssistantTestWorld | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    started = await startAssistantTestWorld('sqlite');
    browser = await launchBrowser();
    Object.assign(world, started, { browser });
  });
  afterAll(async () => {
    await browser?.close();
    await started?.close();
  });
  return world;
}

/** A fresh browser context signed in as `user`, the assistant's owner unless another is given. */
export async function signedInPage(
  world: AssistantTestsPageWorld,
  options: PageOptions = {},
  user: { email: string; password: string } = world.owner,
): Promise<OpenedPage> {
  const opened = await openPage(world.browser, options);
  await logInThroughPage(opened.page, world.server.baseUrl, user.email, user.password);
  return opened;
}

/** The owner's page on the assistant's tests page, once its heading shows. */
export async function ownersTestsPage(world: AssistantTestsPageWorld, options: PageOptions = {}): Promise<OpenedPage> {
  const opened = await signedInPage(world, options);
  await opened.page.goto(`${world.server.baseUrl}/assistants/${world.assistantId}/tests`);
  await expectOneHeading(opened.page, 'Tests of Biology tutor');
  return opened;
}
