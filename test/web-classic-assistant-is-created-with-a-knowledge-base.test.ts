/**
 * Proves in a real Chromium that a creator builds a classic assistant on /assistants/new: the type
 * choice comes first, "Insert {context}" puts the placeholder at the cursor in "Prompt template",
 * the knowledge base is picked by its name, and the model comes from the connector-grouped list of
 * what the organization's (fake) provider serves.
 * After "Save" the assistant's page opens and the API holds exactly what was chosen; choosing
 * "Multi-tool" instead saves the multi-tool defaults (multi_augment, no tools yet). The type
 * choice, the form and the edit page pass axe-core, at 1280 px light and 375 px dark without
 * horizontal overflow.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow, waitForHeading } from './support/page-checks.js';

describe('creating a classic assistant with a knowledge base in the web app', () => {
  let server: TestServer;
  let browser: Browser;
  let creator: CreatedUser;
  let knowledgeBaseId: string;
  let provider: FakeOpenAiServer;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    // The Model list shows what the organization's provider serves: this one serves gpt-4.1.
    provider = await startFakeOpenAiServer();
    provider.setModelList({ models: ['gpt-4.1', 'gpt-4o-mini'] });
    const adminToken = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const providers = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { providers: { openai: { base_url: provider.baseUrl, api_key: 'sk-classic-form' } } },
    });
    expect(providers.status).toBe(200);
    creator = await createUser(server, adminToken, { email: 'teacher@school.test', role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: creator.token, body: { name: 'Photosynthesis notes' } });
    expect(created.status).toBe(201);
    knowledgeBaseId = String(created.body.id);
    await request(server, 'POST', '/api/knowledge-bases', { token: creator.token, body: { name: 'Unrelated notes' } });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
    await provider.close();
  });

  it('saves the classic settings as chosen and opens the new assistant', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await expectOneHeading(page, 'New assistant');
    await expect.poll(() => page.getByRole('radio', { name: 'Classic' }).count()).toBe(1);
    expect(await page.getByRole('radio', { name: 'Multi-tool' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'assistant-new-type-choice-1280-light');

    await page.getByRole('radio', { name: 'Classic' }).check();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Biology helper');
    await page.getByRole('textbox', { name: 'Description', exact: true }).fill('Answers from the course notes');
    await page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('You are a patient biology tutor.');
    const template = page.getByRole('textbox', { name: 'Prompt template', exact: true });
    await template.fill('Question: {user_input}\nNotes: \nAnswer briefly.');
    // The cursor goes after "Notes: " (line two), and the button inserts there, not at the end.
    await template.focus();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.getByRole('button', { name: 'Insert {context}' }).click();
    expect(await template.inputValue()).toBe('Question: {user_input}\nNotes: {context}\nAnswer briefly.');

    const model = page.getByRole('combobox', { name: 'Model', exact: true });
    expect(await model.locator('optgroup').evaluateAll((groups) => groups.map((group) => group.getAttribute('label')))).toEqual(
      expect.arrayContaining(['openai', 'ollama']),
    );
    await model.selectOption('openai/gpt-4.1');
    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('simple_rag');
    await page.getByRole('checkbox', { name: 'Photosynthesis notes' }).check();
    await page.getByRole('spinbutton', { name: 'Passages to retrieve (top k)' }).fill('5');
    await page.getByRole('checkbox', { name: 'Vision' }).check();
    await expectAccessible(page);
    await screenshot(page, 'assistant-new-classic-form-1280-light');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    await waitForHeading(page, 'Biology helper');
    await expectOneHeading(page, 'Biology helper');
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = await request(server, 'GET', `/api/assistants/${id}`, { token: creator.token });
    expect(stored.body).toMatchObject({
      name: 'Biology helper',
      description: 'Answers from the course notes',
      system_prompt: 'You are a patient biology tutor.',
      prompt_template: 'Question: {user_input}\nNotes: {context}\nAnswer briefly.',
      assistant_type: 'classic',
      rag_collections: [knowledgeBaseId],
      rag_top_k: 5,
      metadata: {
        connector: 'openai',
        llm: 'gpt-4.1',
        prompt_processor: 'simple_augment',
        rag_processor: 'simple_rag',
        capabilities: { vision: true, image_generation: false },
        verbose: false,
      },
    });

    // The edit page shows the stored choices by name.
    await expect.poll(() => page.getByRole('checkbox', { name: 'Photosynthesis notes' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Unrelated notes' }).isChecked()).toBe(false);
    expect(await page.getByRole('combobox', { name: 'Model', exact: true }).inputValue()).toBe('openai/gpt-4.1');
    await expectAccessible(page);
    await screenshot(page, 'assistant-edit-classic-1280-light');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('creates a multi-tool assistant with the multi-tool defaults when "Multi-tool" is chosen', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Multi-tool' }).check();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Toolbox');
    expect(await page.getByRole('combobox', { name: 'Knowledge source' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = await request(server, 'GET', `/api/assistants/${id}`, { token: creator.token });
    expect(stored.body).toMatchObject({
      name: 'Toolbox',
      assistant_type: 'multi_tool',
      metadata: { assistant_type: 'multi_tool', tools: [], prompt_processor: 'multi_augment', connector: 'openai', llm: 'gpt-4o-mini' },
    });
    expect(stored.body.metadata.rag_processor).toBeUndefined();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it.each([
    { width: 375, colorScheme: 'dark' as const },
    { width: 1280, colorScheme: 'dark' as const },
  ])('shows an accessible form at $width px, $colorScheme', async (options) => {
    const { context, page } = await openPage(browser, options);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByRole('radio', { name: 'Classic' }).check();
    await page.getByRole('combobox', { name: 'Knowledge source' }).selectOption('simple_rag');
    await page.getByRole('checkbox', { name: 'Photosynthesis notes' }).waitFor();
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, `assistant-new-classic-form-${options.width}-${options.colorScheme}`);
    await context.close();
  });
});
