/**
 * Proves in a real Chromium that /admin/usage shows an organization's administrator their
 * organization's use as charts that are really drawn (painted canvas pixels) with tables holding
 * the same numbers: today's use from real chat requests answered by the fake model, and a past
 * month seeded through the real daily roll-up; that changing "From" and "To" changes the numbers,
 * that a period without use says so instead of drawing, that "Export CSV" downloads the server's
 * CSV, and that the quota gauges measure this month against the organization's limits. A learner
 * and a creator cannot open the page, and another organization's admin sees only their own. An
 * assistant's owner sees its requests, tokens and cost on the assistant's page. Accessible at
 * 1280 and 375 px.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpUsage } from '../src/usage/usage-roll-up.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, openPage, screenshot, signInWithSessionCookie } from './support/browser.js';
import { chartNamed, paintedPixels, tableOf } from './support/chart-checks.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const NOT_ALLOWED = "Only your organization's administrators can see its usage.";

async function totalsOf(page: Page): Promise<Record<string, string>> {
  const region = chartNamed(page, 'Totals');
  const names = await region.locator('dt').allTextContents();
  const values = await region.locator('dd').allTextContents();
  return Object.fromEntries(names.map((name, index) => [name, values[index] ?? '']));
}

async function choosePeriod(page: Page, from: string, to: string): Promise<void> {
  await page.getByLabel('To', { exact: true }).first().fill(to);
  await page.getByLabel('From', { exact: true }).first().fill(from);
}

describe('usage charts for admins and owners', () => {
  let server: TestServer;
  let provider: FakeOpenAiServer;
  let browser: Browser;
  let organizationA: number;
  let adminA: CreatedUser;
  let adminB: CreatedUser;
  let teacher: CreatedUser;
  let learner: CreatedUser;
  let cellBiology: number;
  let today: string;

  async function chatAs(person: CreatedUser, usage: { prompt_tokens: number; completion_tokens: number }): Promise<void> {
    provider.enqueue({ text: 'Cells divide.', usage });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: person.token,
      body: { model: `lamb_assistant.${cellBiology}`, messages: [{ role: 'user', content: 'How do cells divide?' }] },
    });
    expect(answer.status, answer.text).toBe(200);
  }

  /** Waits until the usage rows of the chats are written (they are written in batches, RUN_RECORD_WINDOW_MS). */
  async function countedRequests(expected: number): Promise<void> {
    for (let attempt = 0; attempt < 150; attempt += 1) {
      const report = await request(server, 'GET', '/api/usage', { token: adminA.token });
      if (report.body.totals.requests === expected) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the usage report never counted ${expected} requests`);
  }

  beforeAll(async () => {
    provider = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', { environment: { OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    browser = await launchBrowser();
    const systemAdmin = await loginAsAdmin(server);
    organizationA = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id as number;
    const createdB = await request(server, 'POST', '/api/organizations', {
      token: systemAdmin,
      body: { name: 'Faculty of Law', slug: 'law' },
    });
    expect(createdB.status, createdB.text).toBe(201);
    const organizationB = createdB.body.id as number;
    adminA = await createUser(server, systemAdmin, { email: 'usage-admin@school.test', role: 'admin', name: 'Ada Admin' });
    adminB = await createUser(server, systemAdmin, { email: 'law-admin@school.test', role: 'admin', organization_id: organizationB });
    teacher = await createUser(server, systemAdmin, { email: 'teacher@school.test', role: 'creator', name: 'Tess Teacher' });
    learner = await createUser(server, systemAdmin, { email: 'learner@school.test', role: 'learner', name: 'Leo Learner' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: {
        name: 'Cell biology',
        system_prompt: 'You teach biology.',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] },
      },
    });
    expect(created.status, created.text).toBe(201);
    cellBiology = created.body.id as number;
    await request(server, 'PUT', `/api/assistants/${cellBiology}/publish`, { token: teacher.token, body: { published: true } });
    const lawTutor = await request(server, 'POST', '/api/assistants', {
      token: adminB.token,
      body: { name: 'Contract law', metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] } },
    });

    // Today's use: two real chat requests, counted as the pipeline counts them.
    await chatAs(learner, { prompt_tokens: 1200, completion_tokens: 300 });
    await chatAs(teacher, { prompt_tokens: 800, completion_tokens: 200 });
    await countedRequests(2);
    today = (await request(server, 'GET', '/api/usage', { token: adminA.token })).body.groups[0].key as string;

    // A past month, through the real roll-up: gpt-4o-mini's default prices make $0.12 and $0.45.
    const row = (day: string, people: { organization: number; user: number; assistant: number }, tokens: [number, number]) => ({
      created_at: `${day}T10:00:00.000Z`,
      organization_id: people.organization,
      user_id: people.user,
      assistant_id: people.assistant,
      connector: 'openai',
      model: 'gpt-4o-mini',
      prompt_tokens: tokens[0],
      completion_tokens: tokens[1],
      total_tokens: tokens[0] + tokens[1],
      duration_ms: 5,
      outcome: 'completed',
      request_id: null,
    });
    await rollUpUsage(server.store.db, [
      row('2025-03-10', { organization: organizationA, user: learner.id, assistant: cellBiology }, [400_000, 100_000]),
      row('2025-03-20', { organization: organizationA, user: teacher.id, assistant: cellBiology }, [1_000_000, 500_000]),
      row('2025-03-10', { organization: organizationB, user: adminB.id, assistant: lawTutor.body.id as number }, [7777, 1111]),
    ]);
    const limits = await request(server, 'PATCH', `/api/organizations/${organizationA}/settings`, {
      token: adminA.token,
      body: { limits: { tokens_per_month: 10_000, cost_per_month_usd: 5 } },
    });
    expect(limits.status, limits.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(provider)?.close();
  });

  it("draws this month's use with tables behind the charts, follows From and To, and exports CSV", async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await signInWithSessionCookie(context, server.baseUrl, adminA.email, adminA.password);
    await page.goto(`${server.baseUrl}/admin/usage`);
    await expectOneHeading(page, 'Usage');
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(`${today.slice(0, 7)}-01`);
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(today);

    const tokens = chartNamed(page, 'Tokens per day');
    await tokens.waitFor();
    expect(await tokens.locator('canvas').getAttribute('role')).toBe('img');
    expect(await tokens.locator('canvas').getAttribute('aria-label')).toContain('2,500 in all, 2,000 prompt and 500 completion');
    expect(await tableOf(tokens)).toContainEqual([today, '2', '2,000', '500', '2,500']);
    await expect.poll(() => paintedPixels(tokens)).toBeGreaterThan(500);
    expect(await tableOf(chartNamed(page, 'Cost per day'))).toContainEqual([today, '2', '$0.0006']);
    expect(await paintedPixels(chartNamed(page, 'Cost per day'))).toBeGreaterThan(100);
    expect(await tableOf(chartNamed(page, 'Top users'))).toEqual([
      ['Leo Learner', '1', '1,500', '$0.00036'],
      ['Tess Teacher', '1', '1,000', '$0.00024'],
    ]);
    expect(await tableOf(chartNamed(page, 'Top assistants'))).toEqual([['Cell biology', '2', '2,500', '$0.0006']]);
    expect(await paintedPixels(chartNamed(page, 'Top assistants'))).toBeGreaterThan(100);
    // The gauges: this month's 2,500 tokens of the 10,000 allowed.
    const gauge = chartNamed(page, 'Tokens this month');
    expect(await tableOf(gauge)).toEqual([['This month', '2,500', '10,000', '25%']]);
    await gauge.getByText('2,500 of 10,000 (25%)').waitFor();
    expect(await paintedPixels(gauge)).toBeGreaterThan(100);
    expect(await tableOf(chartNamed(page, 'Cost this month'))).toEqual([['This month', '$0.0006', '$5.00', '0%']]);
    expect(await totalsOf(page)).toMatchObject({ Requests: '2', 'Total tokens': '2,500' });
    await expectAccessible(page);
    await screenshot(page, 'admin-usage-this-month');

    // A past period: the numbers the roll-up holds, and more once "To" takes in the 20th.
    await choosePeriod(page, '2025-03-01', '2025-03-15');
    await expect.poll(() => totalsOf(page)).toMatchObject({ Requests: '1', 'Total tokens': '500,000', Cost: '$0.12' });
    const march = await tableOf(chartNamed(page, 'Tokens per day'));
    // The table lists the days with use; the chart draws all fifteen.
    expect(march).toEqual([['2025-03-10', '1', '400,000', '100,000', '500,000']]);
    expect(await chartNamed(page, 'Cost per day').locator('canvas').getAttribute('aria-label')).toContain('from 2025-03-01 to 2025-03-15');
    await page.getByLabel('To', { exact: true }).fill('2025-03-31');
    await expect.poll(() => totalsOf(page)).toMatchObject({ Requests: '2', 'Total tokens': '2,000,000', Cost: '$0.57' });
    expect(await tableOf(chartNamed(page, 'Tokens per day'))).toContainEqual(['2025-03-20', '1', '1,000,000', '500,000', '1,500,000']);
    await page.getByLabel('Rank by').selectOption('cost');
    await expect
      .poll(() => tableOf(chartNamed(page, 'Top users')))
      .toEqual([
        ['Tess Teacher', '1', '1,500,000', '$0.45'],
        ['Leo Learner', '1', '500,000', '$0.12'],
      ]);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('usage-2025-03-01-2025-03-31-by-day.csv');
    const csv = await readFile(await saved.path(), 'utf8');
    expect(csv).toContain('group_by,key,label,requests,prompt_tokens,completion_tokens,total_tokens,cost_usd');
    expect(csv).toContain('day,2025-03-10,,1,400000,100000,500000,0.12');
    expect(csv).toMatch(/total,.*,2,1400000,600000,2000000,0\.57/);

    // A period without use says so and draws nothing.
    await choosePeriod(page, '2024-01-01', '2024-01-31');
    await page.getByRole('heading', { name: 'No usage in this period' }).waitFor();
    expect(await page.locator('main canvas').count()).toBe(2); // only the two quota gauges
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('is accessible at 375 px in dark mode with the tables open, without scrolling sideways', async () => {
    const { page, context, pageErrors } = await openPage(browser, { width: 375, colorScheme: 'dark' });
    await signInWithSessionCookie(context, server.baseUrl, adminA.email, adminA.password);
    await page.goto(`${server.baseUrl}/admin/usage`);
    const tokens = chartNamed(page, 'Tokens per day');
    await tokens.waitFor();
    await tableOf(tokens);
    await tableOf(chartNamed(page, 'Top users'));
    await expect.poll(() => paintedPixels(tokens)).toBeGreaterThan(500);
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'admin-usage-375');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('refuses learners and creators, and shows another organization only its own use', async () => {
    for (const person of [learner, teacher]) {
      const { page, context } = await openPage(browser);
      await signInWithSessionCookie(context, server.baseUrl, person.email, person.password);
      await page.goto(`${server.baseUrl}/admin/usage`);
      await page.getByText(NOT_ALLOWED).waitFor();
      expect(await page.locator('main canvas').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Export CSV' }).count()).toBe(0);
      await context.close();
    }

    const { page, context } = await openPage(browser);
    await signInWithSessionCookie(context, server.baseUrl, adminB.email, adminB.password);
    // Naming organization A in the address changes nothing for an organization's admin.
    await page.goto(`${server.baseUrl}/admin/usage?organization=${organizationA}`);
    await page.getByRole('heading', { name: 'No usage in this period' }).waitFor();
    expect(await totalsOf(page)).toMatchObject({ Requests: '0' });
    await choosePeriod(page, '2025-03-01', '2025-03-31');
    await expect.poll(() => totalsOf(page)).toMatchObject({ Requests: '1', 'Prompt tokens': '7,777', 'Completion tokens': '1,111' });
    expect(await tableOf(chartNamed(page, 'Top assistants'))).toEqual([['Contract law', '1', '8,888', expect.any(String)]]);
    expect(await page.getByText('Cell biology').count()).toBe(0);
    expect(await page.getByText('Leo Learner').count()).toBe(0);
    await context.close();
  });

  it("shows a teacher their assistant's requests, tokens and cost on its page", async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await signInWithSessionCookie(context, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/${cellBiology}`);
    await expectOneHeading(page, 'Cell biology');
    const panel = chartNamed(page, 'Usage');
    await panel.getByRole('region', { name: 'Tokens per day' }).waitFor();
    // Every request to the assistant, the learner's too: the owner sees them all.
    expect(await panel.locator('dd').allTextContents()).toEqual(['2', '2,000', '500', '2,500', '$0.0006']);
    const chart = panel.getByRole('region', { name: 'Tokens per day' });
    expect(await tableOf(chart)).toContainEqual([today, '2', '2,000', '500', '2,500']);
    await expect.poll(() => paintedPixels(chart)).toBeGreaterThan(200);
    await panel.getByLabel('To', { exact: true }).fill('2025-03-31');
    await panel.getByLabel('From', { exact: true }).fill('2025-03-01');
    await expect.poll(() => panel.locator('dd').allTextContents()).toEqual(['2', '1,400,000', '600,000', '2,000,000', '$0.57']);
    await expectAccessible(page);
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, 'assistant-usage-panel');
    expect(pageErrors).toEqual([]);
    await context.close();

    const phone = await openPage(browser, { width: 375 });
    await signInWithSessionCookie(phone.context, server.baseUrl, teacher.email, teacher.password);
    await phone.page.goto(`${server.baseUrl}/assistants/${cellBiology}`);
    await chartNamed(phone.page, 'Usage').getByRole('region', { name: 'Tokens per day' }).waitFor();
    await expectAccessible(phone.page);
    expect(await horizontalOverflow(phone.page)).toBeLessThanOrEqual(0);
    await phone.context.close();
  });
});
