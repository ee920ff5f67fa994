/**
 * Proves in a real Chromium that LTI 1.1 works where learners meet it: inside a frame of a course
 * page on another site. The course page (another origin) posts a launch signed by the consumer
 * into its iframe; the frame lands on /chat/{assistantId} of the bound assistant, the session
 * holds inside the frame (SameSite=None, Secure on localhost), and the learner chats there. An
 * Instructor's launch of an unset link opens the set-up page in the frame, which binds the link
 * to the assistant picked; the next learner launch of that link lands on its chat. The set-up
 * page passes axe-core and fits 375 px.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedLaunch, type ConsumerCredentials } from './fakes/lti-consumer.js';
import { expectAccessible, launchBrowser, openPage, screenshot } from './support/browser.js';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { request } from './support/test-server.js';

describe('an LTI launch inside a course page on another site', () => {
  let world: ChatWorld;
  let browser: Browser;
  let course: Server;
  let courseOrigin: string;
  /** Merino as the browser addresses it: `localhost`, another site than the course's 127.0.0.1. */
  let merino: string;
  let consumer: ConsumerCredentials;
  /** The launch the course page posts next. */
  let nextLaunch: Record<string, string> = {};

  function escape(value: string): string {
    return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  }

  beforeAll(async () => {
    world = await startChatWorld('sqlite');
    browser = await launchBrowser();
    merino = world.server.baseUrl.replace('127.0.0.1', 'localhost');
    course = createServer((incoming, response) => {
      // `/?window` opens the activity in the whole window instead of the frame, as a course link may.
      const target = incoming.url === '/?window' ? '_top' : 'activity';
      const inputs = Object.entries(nextLaunch)
        .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
        .join('');
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(`<!doctype html><html lang="en"><title>Course</title><h1>Biology 101</h1>
<form method="post" action="${merino}/lti/launch" target="${target}">${inputs}<button>Open the activity</button></form>
<iframe name="activity" title="Activity" style="width:100%;height:700px"></iframe></html>`);
    });
    await new Promise<void>((resolve) => course.listen(0, '127.0.0.1', resolve));
    courseOrigin = `http://127.0.0.1:${(course.address() as AddressInfo).port}`;
    const made = await request(world.server, 'POST', '/api/lti/consumers', {
      token: world.adminToken,
      body: { name: 'Course platform', frame_origins: [courseOrigin] },
    });
    expect(made.status, made.text).toBe(201);
    consumer = { key: made.body.consumer_key, secret: made.body.consumer_secret };
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await new Promise((resolve) => possiblyUnset(course)?.close(resolve) ?? resolve(undefined));
    await possiblyUnset(world)?.close();
  });

  async function launchInFrame(page: Page, parameters: Record<string, string>): Promise<Frame> {
    nextLaunch = signedLaunch(consumer, { url: `${merino}/lti/launch`, parameters });
    await page.goto(courseOrigin);
    await page.getByRole('button', { name: 'Open the activity' }).click();
    const frame = page.frame({ name: 'activity' })!;
    await frame.waitForURL((url) => !url.pathname.endsWith('/lti/launch') && url.protocol === 'http:');
    return frame;
  }

  it('lands a learner on the chat of the bound assistant inside the frame, where they chat', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    const frame = await launchInFrame(page, {
      resource_link_id: 'bio-week-1',
      user_id: 'course-learner-1',
      roles: 'Learner',
      lis_person_name_full: 'Lea Learner',
      custom_assistant_id: String(world.assistantId),
      launch_presentation_return_url: `${courseOrigin}/course`,
    });
    expect(new URL(frame.url()).pathname).toBe(`/chat/${world.assistantId}`);
    await frame.getByRole('heading', { level: 1, name: 'Biology tutor' }).waitFor();
    const me = await frame.evaluate<{ name: string; lti: { return_url: string } }>("fetch('/api/me').then((response) => response.json())");
    expect(me).toMatchObject({ name: 'Lea Learner', lti: { return_url: `${courseOrigin}/course` } });
    // The header names the learner; the address of their own that a launch without an email gets is never shown.
    await frame.getByRole('banner').getByRole('button', { name: 'Account and settings: Lea Learner', exact: true }).waitFor();
    expect(await frame.locator('body').innerText()).not.toContain('.invalid');

    world.provider.enqueue({ text: 'Cells divide by mitosis.' });
    const box = frame.getByRole('textbox', { name: 'Message' });
    await box.fill('How do cells divide?');
    await box.press('Enter');
    await expect
      .poll(() => frame.locator('li.assistant .markdown').allTextContents(), { timeout: 15_000 })
      .toEqual([expect.stringContaining('Cells divide by mitosis.')]);
    await screenshot(page, 'lti-learner-chat-in-course-frame');
    // "Back to course" leaves the frame for the platform's return address; a learner has no dashboard link.
    const back = frame.getByRole('link', { name: 'Back to course' });
    expect([await back.getAttribute('href'), await back.getAttribute('target')]).toEqual([`${courseOrigin}/course`, '_top']);
    expect(await frame.getByRole('link', { name: 'Activity dashboard' }).count()).toBe(0);
    await back.click();
    await page.waitForURL(`${courseOrigin}/course`);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('opens the set-up page for an Instructor on an unset link, which binds it for the next learner', async () => {
    const { page, context } = await openPage(browser);
    const frame = await launchInFrame(page, {
      resource_link_id: 'bio-week-2',
      user_id: 'course-teacher-1',
      roles: 'Instructor',
      lis_person_name_full: 'Tom Teacher',
    });
    expect(new URL(frame.url()).pathname).toMatch(/^\/lti\/activities\/\d+\/setup$/);
    await frame.getByRole('heading', { level: 1, name: 'Set up this activity' }).waitFor();
    await frame.getByRole('combobox', { name: 'Assistant' }).selectOption({ label: 'Biology tutor' });
    await frame.getByRole('button', { name: 'Use this assistant' }).click();
    await frame.getByRole('heading', { level: 1, name: 'Activity set up' }).waitFor();
    await screenshot(page, 'lti-instructor-set-up-bound');

    const learner = await openPage(browser);
    const learnerFrame = await launchInFrame(learner.page, {
      resource_link_id: 'bio-week-2',
      user_id: 'course-learner-2',
      roles: 'Learner',
    });
    expect(new URL(learnerFrame.url()).pathname).toBe(`/chat/${world.assistantId}`);
    await learner.context.close();
    await context.close();
  });

  it('shows an accessible set-up page at phone width in dark mode, launched in the whole window', async () => {
    const { page, context } = await openPage(browser, { width: 375, colorScheme: 'dark' });
    nextLaunch = signedLaunch(consumer, {
      url: `${merino}/lti/launch`,
      parameters: { resource_link_id: 'bio-week-3', user_id: 'course-teacher-2', roles: 'Instructor' },
    });
    await page.goto(`${courseOrigin}/?window`);
    await page.getByRole('button', { name: 'Open the activity' }).click();
    await page.waitForURL(/\/lti\/activities\/\d+\/setup$/);
    await page.getByRole('heading', { level: 1, name: 'Set up this activity' }).waitFor();
    await expectAccessible(page);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await screenshot(page, 'lti-set-up-page-375-dark');
    await context.close();
  });
});
