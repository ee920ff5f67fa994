/**
 * Proves in a real Chromium that a teacher makes an image-generating assistant in the studio (the
 * "Image generation" box picks the organization's image provider, banana_img), and that a learner
 * chatting with it sees the picture drawn in the chat page: a same-origin image the browser loaded
 * from /api/files/{id}/content. Where the server has no image provider the box is not offered.
 * The pages pass axe-core.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { sendMessage, signedInPage, startChatPageWorld, type ChatPageWorld } from './support/chat-pages.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request, startTestServer, type TestServer } from './support/test-server.js';

describe('an image assistant in the web app', () => {
  let world: ChatPageWorld;
  let withoutImages: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [world, withoutImages, browser] = await Promise.all([startChatPageWorld(), startTestServer('sqlite'), launchBrowser()]);
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.close();
    await possiblyUnset(withoutImages)?.close();
  });

  it('is made with the Image generation box, and its answer is a picture in the chat', async () => {
    // OpenAI's own list names its image models among the others; the box offers the first of them.
    world.provider.setModelList({ models: ['gpt-4o-mini', 'gpt-image-1', 'text-embedding-3-small'] });
    const teacher = await openPage(browser);
    await logInThroughPage(teacher.page, world.server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await teacher.page.goto(`${world.server.baseUrl}/assistants/new`);
    await teacher.page.getByRole('radio', { name: 'Classic' }).check();
    await teacher.page.getByRole('textbox', { name: 'Name', exact: true }).fill('Poster painter');
    await teacher.page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('Draw a poster of what is asked.');
    await teacher.page.getByRole('checkbox', { name: 'Image generation' }).check();
    await expectAccessible(teacher.page);
    await teacher.page.getByRole('button', { name: 'Save', exact: true }).click();
    await teacher.page.waitForURL(/\/assistants\/\d+$/);
    const assistantId = Number(new URL(teacher.page.url()).pathname.split('/').at(-1));
    expect(teacher.pageErrors).toEqual([]);
    await teacher.context.close();

    const stored = (await request(world.server, 'GET', `/api/assistants/${assistantId}`, { token: world.adminToken })).body;
    expect(stored.metadata.connector).toBe('banana_img');
    expect(stored.metadata.llm).toBe('gpt-image-1');
    expect(stored.metadata.capabilities.image_generation).toBe(true);
    const published = await request(world.server, 'PUT', `/api/assistants/${assistantId}/publish`, {
      token: world.adminToken,
      body: { published: true },
    });
    expect(published.status, published.text).toBe(200);

    const { page, context, pageErrors } = await signedInPage(browser, world, world.learner);
    await page.goto(`${world.server.baseUrl}/chat/${assistantId}`);
    await sendMessage(page, 'A cell dividing, as a poster');
    const picture = page.locator('li.assistant .markdown img');
    await picture.waitFor();
    expect(await picture.getAttribute('alt')).toBe('Generated image');
    expect(await picture.getAttribute('src')).toMatch(/^\/api\/files\/\d+\/content$/);
    // Drawn, not a broken image: the browser fetched it with the learner's session and decoded it.
    await page.waitForFunction(
      "(() => { const image = document.querySelector('li.assistant .markdown img'); return image !== null && image.complete && image.naturalWidth > 0; })()",
    );
    const generatedPrompt = world.provider.requests.find((sent) => sent.path.endsWith('/images/generations'));
    expect(JSON.stringify(generatedPrompt?.body)).toContain('A cell dividing, as a poster');
    // However wide the provider's image, it never widens the answer past the page.
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('li.assistant .markdown img')).maxWidth")).toBe('100%');
    await expectAccessible(page);
    await screenshot(page, 'chat-generated-image');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('is not offered where the server has no image provider', async () => {
    const { page, context } = await openPage(browser);
    await logInThroughPage(page, withoutImages.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${withoutImages.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    await page.getByRole('checkbox', { name: 'Vision' }).waitFor();
    // The model list has loaded once its note is gone; then the image box would have shown.
    await page.getByText('Asking the providers which models they serve', { exact: false }).waitFor({ state: 'detached' });
    expect(await page.getByRole('checkbox', { name: 'Image generation' }).count()).toBe(0);
    await context.close();
  });
});
