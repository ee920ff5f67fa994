/**
 * Proves in a real Chromium that an LTI 1.3 launch inside a course page on another site is bound
 * to the browser that started it, with or without the login's cookie. The platform simulator's
 * course page (127.0.0.1) frames Merino's login (as `localhost`, another site) offering platform
 * storage (`lti_storage_target=_parent`) and answers the LTI postMessages. With the cookie dropped
 * before the launch (as a browser that blocks third-party cookies does), the launch reads the
 * login's secret back through `lti.get_data` and lands on the chat; with the cookie kept, the
 * cookie alone carries it; and when the platform never answers, the learner is told to open the
 * activity again, on a page axe-core passes.
 */
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, openPage } from './support/browser.js';
import { startLti13World, type Lti13World } from './support/lti-1-3-world.js';
import { possiblyUnset } from './support/possibly-unset.js';

interface StorageMessage {
  subject: string;
  origin: string;
  key: string;
}

describe('an LTI 1.3 launch in a course frame on another site', () => {
  let world: Lti13World;
  let browser: Browser;
  /** Merino as the browser addresses it: `localhost`, another site than the platform's 127.0.0.1. */
  let merino: string;

  beforeAll(async () => {
    world = await startLti13World('sqlite', { LTI_PLATFORM_STORAGE_WAIT_MS: '1500' });
    browser = await launchBrowser();
    merino = world.server.baseUrl.replace('127.0.0.1', 'localhost');
    world.platform.toolLoginUrl = `${merino}/lti/1.3/login`;
    world.platform.next = { custom: { assistant_id: String(world.assistantId) }, subject: 'framed-learner' };
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
  });

  /** Opens the course page and waits until the frame reaches the platform's authorization page, then returns the frame. */
  async function openCourse(page: Page): Promise<Frame> {
    await page.goto(`${world.platform.issuer}/course`);
    const frame = page.frame({ name: 'activity' })!;
    await frame.waitForURL((url) => url.pathname === '/auth');
    return frame;
  }

  async function storageLog(page: Page): Promise<StorageMessage[]> {
    return page.evaluate<StorageMessage[]>('window.storageLog');
  }

  it('reads the secret back from the platform when the cookie is gone, and lands on the chat', async () => {
    world.platform.answersStorage = true;
    const { page, context, pageErrors } = await openPage(browser);
    const frame = await openCourse(page);
    expect(await storageLog(page)).toEqual([expect.objectContaining({ subject: 'lti.put_data', origin: merino })]);
    await context.clearCookies();
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.waitForURL((url) => url.pathname === `/chat/${world.assistantId}`);
    const log = await storageLog(page);
    expect(log.map((message) => [message.subject, message.origin])).toEqual([
      ['lti.put_data', merino],
      ['lti.get_data', merino],
    ]);
    expect(log[1]!.key).toBe(log[0]!.key);
    const me = await frame.evaluate<{ name: string }>("fetch('/api/me').then((response) => response.json())");
    expect(me.name).toBe('Pat Platform');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('lets the cookie alone carry the secret when the browser keeps it', async () => {
    world.platform.answersStorage = true;
    const { page, context } = await openPage(browser);
    const frame = await openCourse(page);
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.waitForURL((url) => url.pathname === `/chat/${world.assistantId}`);
    expect((await storageLog(page)).map((message) => message.subject)).toEqual(['lti.put_data']);
    await context.close();
  });

  it('tells the learner to open the activity again when the platform never answers, on an accessible page', async () => {
    world.platform.answersStorage = false;
    const { page, context } = await openPage(browser);
    const frame = await openCourse(page);
    await context.clearCookies();
    await frame.getByRole('button', { name: 'Continue' }).click();
    await frame.getByRole('status').getByText('Your course could not confirm this sign-in').waitFor();
    expect(new URL(frame.url()).pathname).toBe('/lti/1.3/launch');
    expect(await frame.evaluate<string>("fetch('/api/me').then((response) => String(response.status))")).toBe('401');
    await expectAccessible(frame);
    await context.close();
  });
});
