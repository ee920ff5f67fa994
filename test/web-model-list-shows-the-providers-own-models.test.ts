/**
 * Proves in a real Chromium that the studio's Model field lists the models the organization's
 * (fake) OpenAI-compatible provider itself serves, with the organization's default marked (and chosen for a new
 * assistant) and models it does not allow left out, shows a failing provider as unavailable with its reason in
 * plain words, and offers a creator no test connector (bypass) while a system admin sees it. The
 * form passes axe-core at 1280 px and at 375 px without horizontal overflow.
 */
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type TestServer,
} from './support/test-server.js';

const SERVED = ['qwen2.5-7b-instruct', 'university/llama-3.1-70b-instruct', 'not-for-teachers'];

async function optionValues(select: Locator): Promise<string[]> {
  return select.locator('option').evaluateAll((options) => options.map((option) => option.getAttribute('value') ?? ''));
}

describe('the Model field in the studio', () => {
  let server: TestServer;
  let browser: Browser;
  let gateway: FakeOpenAiServer;
  let ollama: FakeOllamaServer;
  let creator: CreatedUser;

  beforeAll(async () => {
    gateway = await startFakeOpenAiServer();
    gateway.setModelList({ models: SERVED });
    ollama = await startFakeOllamaServer();
    ollama.setModelList({ status: 500 });
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const saved = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: {
        providers: { openai: { base_url: gateway.baseUrl, api_key: 'sk-studio-model-list' }, ollama: { base_url: ollama.baseUrl } },
        models: {
          allowed: ['openai/qwen2.5-7b-instruct', 'openai/university/llama-3.1-70b-instruct'],
          default: 'openai/university/llama-3.1-70b-instruct',
        },
      },
    });
    expect(saved.status).toBe(200);
    creator = await createUser(server, adminToken, { email: 'teacher@school.test', role: 'creator' });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
    await gateway.close();
    await ollama.close();
  });

  it("the Model list shows the fake provider's own model ids and no test connector for a creator", async () => {
    for (const width of [1280, 375]) {
      const { context, page, pageErrors } = await openPage(browser, { width });
      await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
      await page.goto(`${server.baseUrl}/assistants/new`);
      await expectOneHeading(page, 'New assistant');
      await page.getByRole('radio', { name: 'Classic' }).check();
      const model = page.getByRole('combobox', { name: 'Model', exact: true });
      await expect.poll(() => optionValues(model)).toContain('openai/university/llama-3.1-70b-instruct');
      const values = await optionValues(model);
      expect(values).toEqual(expect.arrayContaining(['openai/qwen2.5-7b-instruct', 'openai/university/llama-3.1-70b-instruct']));
      expect(values).not.toContain('openai/not-for-teachers');
      expect(values.some((value) => value.startsWith('bypass/'))).toBe(false);
      expect(await model.locator('optgroup[label="bypass"]').count()).toBe(0);
      expect(await model.locator('option', { hasText: 'llama-3.1-70b-instruct (default)' }).count()).toBe(1);
      // Ollama answered 500: it is unavailable, with its reason, and none of its models are guessed.
      await expect.poll(() => page.getByText('ollama is unavailable: the provider answered with an error.').count()).toBe(1);
      expect(await model.locator('optgroup[label="ollama"] option:not([disabled])').count()).toBe(0);
      // A new assistant starts at the organization's default, not at the form's built-in fallback.
      await expect.poll(() => model.inputValue()).toBe('openai/university/llama-3.1-70b-instruct');
      await model.selectOption('openai/qwen2.5-7b-instruct');
      expect(await model.inputValue()).toBe('openai/qwen2.5-7b-instruct');
      await model.scrollIntoViewIfNeeded();
      await expectAccessible(page);
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `studio-model-list-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
  });

  it('a system admin sees the test connector in the Model list', async () => {
    const { context, page } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    const model = page.getByRole('combobox', { name: 'Model', exact: true });
    await expect.poll(() => optionValues(model)).toContain('bypass/simple-bypass');
    await context.close();
  });
});
