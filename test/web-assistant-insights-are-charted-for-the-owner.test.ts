/**
 * Proves in a real Chromium that an assistant's owner reaches its insights from the assistant page
 * ("Insights") and sees, under the heading "Insights", what learners' real chats did: the totals,
 * messages per day and the question topics as charts that are really drawn (painted pixels) with
 * tables holding the same numbers, and the rated answers with their comment and conversation,
 * learners by pseudonym only; that the rating filter narrows them, that "Export CSV" downloads the
 * server's CSV, and that a learner is told the page is not theirs. Accessible at 1280 and 375 px.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, openPage, screenshot, signInWithSessionCookie } from './support/browser.js';
import { chartNamed, paintedPixels, tableOf } from './support/chart-checks.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, type CreatedUser, startTestServer, type TestServer } from './support/test-server.js';

const QUESTIONS = [
  'What does photosynthesis need?',
  'Where does photosynthesis happen in the leaf?',
  'Why is photosynthesis slower in winter?',
];
const COMMENT = 'It skipped the chloroplasts.';

async function totalsOf(page: Page): Promise<Record<string, string>> {
  const region = chartNamed(page, 'Totals');
  const names = await region.locator('dt').allTextContents();
  const values = await region.locator('dd').allTextContents();
  return Object.fromEntries(names.map((name, index) => [name, values[index] ?? '']));
}

describe('assistant insights page', () => {
  let server: TestServer;
  let provider: FakeOpenAiServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let learner: CreatedUser;
  let assistantId: number;
  let today: string;

  beforeAll(async () => {
    provider = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', { environment: { OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    browser = await launchBrowser();
    const systemAdmin = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id as number;
    await request(server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: systemAdmin,
      body: { owners_can_read_chats: true },
    });
    teacher = await createUser(server, systemAdmin, { email: 'insights-teacher@school.test', role: 'creator', name: 'Tess Teacher' });
    learner = await createUser(server, systemAdmin, { email: 'insights-learner@school.test', role: 'learner', name: 'Leonora Learner' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: {
        name: 'Plant biology',
        system_prompt: 'You teach plant biology.',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] },
      },
    });
    expect(created.status, created.text).toBe(201);
    assistantId = created.body.id as number;
    await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: teacher.token, body: { published: true } });
    const chat = await request(server, 'POST', '/api/chats', { token: learner.token, body: { assistant_id: assistantId } });
    for (const question of QUESTIONS) {
      provider.enqueue({
        text: `Plants need light, water and <b>carbon dioxide</b>.`,
        usage: { prompt_tokens: 300, completion_tokens: 100 },
      });
      const asked = await request(server, 'POST', `/api/chats/${chat.body.id}/messages`, {
        token: learner.token,
        body: { content: question },
      });
      expect(asked.status, asked.text).toBe(200);
    }
    const messages = (await request(server, 'GET', `/api/chats/${chat.body.id}`, { token: learner.token })).body.messages as {
      id: number;
      role: string;
      created_at: string;
    }[];
    const firstAnswer = messages.find((message) => message.role === 'assistant')!;
    today = firstAnswer.created_at.slice(0, 10);
    const rated = await request(server, 'PUT', `/api/chats/${chat.body.id}/messages/${firstAnswer.id}/feedback`, {
      token: learner.token,
      body: { rating: 'down', comment: COMMENT },
    });
    expect(rated.status, rated.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(provider)?.close();
  });

  it('charts the learners’ use with tables behind the charts, lists the rated answer and exports CSV', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await signInWithSessionCookie(context, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/${assistantId}`);
    await page.getByRole('link', { name: 'Insights of Plant biology' }).click();
    await page.waitForURL(`**/assistants/${assistantId}/insights`);
    await expectOneHeading(page, 'Insights');

    await expect
      .poll(() => totalsOf(page))
      .toMatchObject({ Chats: '1', Learners: '1', Messages: '6', Tokens: '1,200', 'Rated helpful': '0%' });
    const messages = chartNamed(page, 'Messages per day');
    expect(await messages.locator('canvas').getAttribute('role')).toBe('img');
    expect(await messages.locator('canvas').getAttribute('aria-label')).toContain('6 messages');
    expect(await tableOf(messages)).toEqual([[today, '3', '3', '1']]);
    await expect.poll(() => paintedPixels(messages)).toBeGreaterThan(100);
    const topics = chartNamed(page, 'Frequent question topics');
    expect(await tableOf(topics)).toEqual([['photosynthesis', '3']]);
    expect(await paintedPixels(topics)).toBeGreaterThan(100);

    const rated = chartNamed(page, 'Rated answers');
    const article = rated.getByRole('article');
    await expect.poll(() => article.count()).toBe(1);
    expect(await article.getByRole('heading').innerText()).toMatch(/^Learner [0-9a-f]{6} rated this not helpful on \d{4}-\d{2}-\d{2}$/);
    expect(await article.innerText()).toContain(COMMENT);
    await article.getByText('Conversation', { exact: true }).click();
    await article.getByText(QUESTIONS[0]!).waitFor();
    // Model output is text here: its markup is shown, never run.
    await article.getByText('<b>carbon dioxide</b>', { exact: false }).waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(/Leonora|insights-learner@/);
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, 'assistant-insights');

    await rated.getByLabel('Rating').selectOption('up');
    await rated.getByText(/No rated answers to show/).waitFor();
    await rated.getByLabel('Rating').selectOption('down');
    await expect.poll(() => article.count()).toBe(1);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toMatch(new RegExp(`^assistant-${assistantId}-insights-\\d{4}-\\d{2}-\\d{2}-${today}\\.csv$`));
    const csv = await readFile(await saved.path(), 'utf8');
    expect(csv.split('\r\n')[0]).toBe(
      'day,chats,questions,answers,prompt_tokens,completion_tokens,cost_usd,tool_calls,tool_failures,feedback_up,feedback_down,retrieval_questions,retrieval_empty',
    );
    expect(csv).toContain(`${today},1,3,3,900,300,`);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('fits a phone and stays accessible there', async () => {
    const { page, context } = await openPage(browser, { width: 375 });
    await signInWithSessionCookie(context, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/${assistantId}/insights`);
    await expectOneHeading(page, 'Insights');
    await chartNamed(page, 'Messages per day').waitFor();
    await chartNamed(page, 'Rated answers').getByRole('article').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'assistant-insights-phone');
    await context.close();
  });

  it('tells a learner the insights are not theirs', async () => {
    const { page, context } = await openPage(browser);
    await signInWithSessionCookie(context, server.baseUrl, learner.email, learner.password);
    await page.goto(`${server.baseUrl}/assistants/${assistantId}/insights`);
    await expectOneHeading(page, 'Insights');
    await page.getByText('Only the owner of this assistant and its administrators can see its insights.').waitFor();
    expect(await page.locator('canvas').count()).toBe(0);
    await expectAccessible(page);
    await context.close();
  });
});
