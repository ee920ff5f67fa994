/**
 * The studio in a real Chromium, against a fake OpenAI-compatible provider:
 * - the "Insert {…}" buttons sit right under the prompt template and insert at the cursor;
 * - a new multi-tool assistant's template holds its tools' placeholders until the teacher edits it;
 * - "Try it" answers with the SAVED assistant (the provider sees the saved system prompt, not the
 *   unsaved edit, and the panel says so), streamed, and the trial is not among the teacher's chats;
 * - a knowledge base ticked once applies to every knowledge-base tool, and a tool may choose its own;
 * - a save without a knowledge base says "Pick at least one knowledge base" and focus goes there;
 * - no internal word (multi_augment, simple_augment, RAG, orchestrator, "Least similarity") is on
 *   screen for the teacher or the learner, and the learner sees no type filter;
 * - axe-core finds no serious or critical violation at 1280 and 375 px.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { expectAccessible, launchBrowser, openPage, screenshot, signInWithSessionCookie } from './support/browser.js';
import { isFocused, waitForHeading } from './support/page-checks.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const JARGON = /multi_augment|simple_augment|\bRAG\b|orchestrator|Least similarity/i;

/** Every word on screen, with the texts of the options of every select (a closed select shows only one). */
async function visibleWords(page: Page): Promise<string> {
  return page.evaluate(
    "document.body.innerText + '\\n' + [...document.querySelectorAll('option')].map((option) => option.textContent).join('\\n')",
  );
}

async function addTool(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Add tool' }).click();
  await page.getByRole('dialog', { name: 'Choose a tool' }).getByRole('button', { name, exact: true }).click();
  await page.getByRole('article', { name }).waitFor();
}

function template(page: Page): Locator {
  return page.getByRole('textbox', { name: 'Prompt template', exact: true });
}

describe('the studio', () => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let learner: CreatedUser;
  const knowledgeBases: Record<string, string> = {};

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', { environment: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: 'studio@school.test', role: 'creator' });
    learner = await createUser(server, adminToken, { email: 'pupil@school.test', role: 'learner' });
    for (const name of ['Plant notes', 'Lab manual']) {
      const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name } });
      expect(created.status, created.text).toBe(201);
      knowledgeBases[name] = String(created.body.id);
    }
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
    await fake.close();
  });

  it('puts the placeholder buttons under the template, fills a new template from the tools, and inserts at the cursor', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await signInWithSessionCookie(context, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByLabel('Multi-tool', { exact: true }).check();
    await addTool(page, 'Knowledge base passages');
    await addTool(page, 'Assessment rubric');
    await expect.poll(() => template(page).inputValue()).toBe('{context}\n\n{rubric}\n\n{user_input}');
    // Switched off, a tool's placeholder leaves the template that still follows the tools.
    await page.getByRole('article', { name: 'Assessment rubric' }).getByLabel('Enabled').uncheck();
    await expect.poll(() => template(page).inputValue()).toBe('{context}\n\n{user_input}');

    // The buttons come right after the template, before the tools.
    const buttons = page.getByRole('group', { name: 'Placeholders' });
    const templateBox = (await template(page).boundingBox())!;
    const buttonsBox = (await buttons.boundingBox())!;
    const toolsBox = (await page.getByRole('heading', { name: 'Tools', exact: true }).boundingBox())!;
    expect(buttonsBox.y).toBeGreaterThan(templateBox.y);
    expect(buttonsBox.y - (templateBox.y + templateBox.height)).toBeLessThan(80);
    expect(toolsBox.y).toBeGreaterThan(buttonsBox.y);

    // Once the teacher writes the template it is theirs: tools no longer rewrite it.
    await template(page).fill('Read this first.\nThen answer: {user_input}');
    await template(page).focus();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await buttons.getByRole('button', { name: 'Insert {context}' }).click();
    expect(await template(page).inputValue()).toBe('Read this first.\n{context}\nThen answer: {user_input}');
    await page.getByRole('article', { name: 'Assessment rubric' }).getByLabel('Enabled').check();
    await page.getByText('Assessment rubric fills {rubric}, which the template does not use').waitFor();
    expect(await template(page).inputValue()).toBe('Read this first.\n{context}\nThen answer: {user_input}');
    expect(JARGON.exec(await visibleWords(page))).toBeNull();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('names a missing knowledge base in words and takes focus there, then shares one choice across the tools', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await signInWithSessionCookie(context, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByLabel('Multi-tool', { exact: true }).check();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Botany helper');
    await addTool(page, 'Knowledge base passages');
    await addTool(page, 'Search knowledge base');
    const shared = page.getByRole('group', { name: 'Knowledge bases of this assistant' });
    await shared.getByLabel('Plant notes').waitFor();
    // Sharing, the cards show no picker of their own.
    expect(await page.getByRole('article', { name: 'Search knowledge base' }).getByLabel('Plant notes').count()).toBe(0);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await shared.getByText('Pick at least one knowledge base').waitFor();
    expect(await isFocused(shared.getByRole('checkbox').first())).toBe(true);
    await page.getByRole('textbox', { name: 'Name', exact: true }).focus();
    await page.getByRole('button', { name: 'Go to the first problem' }).click();
    expect(await isFocused(shared.getByRole('checkbox').first())).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/assistants/new');
    await expectAccessible(page);
    await screenshot(page, 'studio-missing-knowledge-base-1280');

    await shared.getByLabel('Plant notes').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(/\/assistants\/(\d+)$/.exec(page.url())?.[1]);
    const stored = async () => (await request(server, 'GET', `/api/assistants/${id}`, { token: teacher.token })).body.metadata.tools;
    const plantNotes = knowledgeBases['Plant notes']!;
    const labManual = knowledgeBases['Lab manual']!;
    expect((await stored()).map((tool: { config: { collections: string[] } }) => tool.config.collections)).toEqual([
      [plantNotes],
      [plantNotes],
    ]);

    // One tool chooses its own; the other keeps sharing.
    await waitForHeading(page, 'Botany helper');
    const search = page.getByRole('article', { name: 'Search knowledge base' });
    await search.getByLabel('Use the knowledge bases of this assistant').uncheck();
    await search.getByLabel('Lab manual').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.save-bar [role="status"]').innerText()).toBe('Saved');
    const collections = (await stored()).map((tool: { config: { collections: string[] } }) => [...tool.config.collections].sort());
    expect(collections).toEqual([[plantNotes], [labManual, plantNotes].sort()]);
    await page.reload();
    await waitForHeading(page, 'Botany helper');
    expect(
      await page
        .getByRole('article', { name: 'Search knowledge base' })
        .getByLabel('Use the knowledge bases of this assistant')
        .isChecked(),
    ).toBe(false);
    expect(
      await page
        .getByRole('article', { name: 'Knowledge base passages' })
        .getByLabel('Use the knowledge bases of this assistant')
        .isChecked(),
    ).toBe(true);
    expect(JARGON.exec(await visibleWords(page))).toBeNull();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('tries the saved assistant beside the editor, keeps no chat, and speaks plainly to the learner', async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: {
        name: 'Rubric coach',
        system_prompt: 'SAVED PROMPT: coach kindly.',
        prompt_template: '{context}\n\n{rubric}\n\n{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          prompt_processor: 'multi_augment',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tools: [
            { type: 'simple_rag', enabled: true, config: { collections: [knowledgeBases['Plant notes']] } },
            { type: 'simple_rag', enabled: true, config: { collections: [knowledgeBases['Lab manual']], placeholder: 'rubric' } },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    fake.setResponder(() => ({ chunks: ['Photosynthesis ', 'makes sugar.'], chunkDelayMs: 20 }));

    for (const width of [1280, 375]) {
      fake.reset();
      fake.setResponder(() => ({ chunks: ['Photosynthesis ', 'makes sugar.'], chunkDelayMs: 20 }));
      const { context, page, pageErrors } = await openPage(browser, { width });
      await signInWithSessionCookie(context, server.baseUrl, teacher.email, teacher.password);
      await page.goto(`${server.baseUrl}/assistants/${id}`);
      await waitForHeading(page, 'Rubric coach');
      const panel = page.getByRole('region', { name: 'Try it' });
      // Beside the editor on a desktop, below it on a phone.
      const panelBox = (await panel.boundingBox())!;
      const nameBox = (await page.getByRole('textbox', { name: 'Name', exact: true }).boundingBox())!;
      if (width === 1280) expect(panelBox.x).toBeGreaterThan(nameBox.x + nameBox.width);
      else expect(panelBox.y).toBeGreaterThan(nameBox.y + nameBox.height);

      await page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('UNSAVED PROMPT');
      await panel.getByText('You have unsaved changes. Try it uses the saved version').waitFor();
      await panel.getByRole('textbox', { name: 'Message' }).fill('What does photosynthesis do?');
      await panel.getByRole('button', { name: 'Send' }).click();
      await panel.getByText('Photosynthesis makes sugar.').waitFor();
      const sent = JSON.stringify(fake.requests.at(-1)?.body);
      expect(sent).toContain('SAVED PROMPT: coach kindly.');
      expect(sent).not.toContain('UNSAVED PROMPT');
      // The step that merges the tools' outputs has a plain name.
      // (inside the folded tool activity, so present rather than visible)
      await expect.poll(() => panel.getByText('Combining what the tools found').count()).toBe(1);
      expect(JARGON.exec(await visibleWords(page))).toBeNull();
      await expectAccessible(page);
      await screenshot(page, `studio-try-it-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    }

    const chats = await request(server, 'GET', '/api/chats', { token: teacher.token });
    expect(chats.status).toBe(200);
    expect(chats.body.items).toEqual([]);

    // The learner: a plain step name in the chat, and no type filter on the list.
    expect(
      (await request(server, 'PUT', `/api/assistants/${id}/publish`, { token: teacher.token, body: { published: true } })).status,
    ).toBe(200);
    const { context, page, pageErrors } = await openPage(browser, { width: 375 });
    await signInWithSessionCookie(context, server.baseUrl, learner.email, learner.password);
    await page.goto(`${server.baseUrl}/assistants`);
    await page.getByText('Rubric coach').first().waitFor();
    expect(await page.getByLabel('Type', { exact: true }).count()).toBe(0);
    expect(JARGON.exec(await visibleWords(page))).toBeNull();
    await page.goto(`${server.baseUrl}/chat/${id}`);
    await page.getByRole('textbox', { name: 'Message' }).fill('Tell me about leaves');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Photosynthesis makes sugar.').waitFor();
    await expect.poll(() => page.getByText('Combining what the tools found').count()).toBe(1);
    expect(JARGON.exec(await visibleWords(page))).toBeNull();
    await expectAccessible(page);
    await screenshot(page, 'studio-learner-chat-plain-words-375');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
