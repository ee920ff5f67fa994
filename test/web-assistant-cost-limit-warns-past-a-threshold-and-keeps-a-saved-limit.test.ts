/**
 * Proves in a real Chromium that an assistant's usage panel shows its own monthly cost limit: after
 * real chat requests (answered by the fake model with fixed token usage) spend past a threshold,
 * the owner sees a warning naming the threshold crossed; a new limit and thresholds saved in the
 * panel are kept after a reload; a limit the API refuses shows its message at the field; emptying
 * the limit removes it. Accessible (axe-core) at 1280 and 375 px.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

/** gpt-4o-mini's default prices ($0.15 and $0.60 per million) make these 2,000 + 500 tokens $0.0006. */
const ANSWER_USAGE = { prompt_tokens: 2000, completion_tokens: 500 };

function quotaSection(page: Page): Locator {
  return page.getByRole('region', { name: 'Monthly cost limit', exact: true });
}

describe("an assistant's cost limit in its usage panel", () => {
  let server: TestServer;
  let provider: FakeOpenAiServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let assistantId: number;

  beforeAll(async () => {
    provider = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', { environment: { OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    browser = await launchBrowser();
    const systemAdmin = await loginAsAdmin(server);
    teacher = await createUser(server, systemAdmin, { email: 'quota-teacher@school.test', role: 'creator', name: 'Tess Teacher' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: { name: 'Cell biology', metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] } },
    });
    expect(created.status, created.text).toBe(201);
    assistantId = created.body.id as number;
    const limit = await request(server, 'PUT', `/api/assistants/${assistantId}/quota`, {
      token: teacher.token,
      body: { cost_per_month_usd: 0.001, alert_thresholds: [50, 80, 100] },
    });
    expect(limit.status, limit.text).toBe(200);
    provider.enqueue({ text: 'Cells divide.', usage: ANSWER_USAGE });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: teacher.token,
      body: { model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: 'How do cells divide?' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    // The usage row is written in a batch (RUN_RECORD_WINDOW_MS): wait until the quota counts it.
    for (let attempt = 0; attempt < 150; attempt += 1) {
      const quota = await request(server, 'GET', `/api/assistants/${assistantId}/quota`, { token: teacher.token });
      if (quota.body.spent_percent === 60) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the assistant's quota never counted the chat");
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(provider)?.close();
  });

  it('warns past a threshold, keeps a saved limit after a reload, shows a refusal at its field and removes an emptied limit', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/${assistantId}`);
    await expectOneHeading(page, 'Cell biology');
    const section = quotaSection(page);
    await section.getByText(/\$0\.0006 of \$0\.001 used this month \(60%\)\. It resets on /).waitFor();
    // 60 % crossed 50 %, not 80 %: one warning, for the highest threshold crossed.
    const warning = section.getByRole('status').filter({ hasText: "of this month's limit used" });
    expect(await warning.innerText()).toBe("50% of this month's limit used ($0.0006 of $0.001).");
    const limit = section.getByRole('textbox', { name: 'Monthly cost limit (US dollars)' });
    const thresholds = section.getByRole('textbox', { name: 'Alert thresholds (percent)' });
    expect(await limit.inputValue()).toBe('0.001');
    expect(await thresholds.inputValue()).toBe('50, 80, 100');
    await expectAccessible(page);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'assistant-cost-limit-warning-1280');

    // A limit the API refuses: its message at the field, and nothing saved.
    await limit.fill('-5');
    await section.getByRole('button', { name: 'Set limit' }).click();
    await section.getByText('Not saved: check the fields marked below.').waitFor();
    await expect.poll(() => limit.getAttribute('aria-invalid')).toBe('true');
    expect((await request(server, 'GET', `/api/assistants/${assistantId}/quota`, { token: teacher.token })).body.cost_per_month_usd).toBe(
      0.001,
    );
    await expectAccessible(page);
    await screenshot(page, 'assistant-cost-limit-refused');

    // A new limit and thresholds, kept after a reload.
    await limit.fill('0.004');
    await thresholds.fill('10, 25');
    await section.getByRole('button', { name: 'Set limit' }).click();
    await section.getByText('Limit saved.').waitFor();
    await page.reload();
    await expect
      .poll(() => quotaSection(page).getByRole('textbox', { name: 'Monthly cost limit (US dollars)' }).inputValue())
      .toBe('0.004');
    expect(await quotaSection(page).getByRole('textbox', { name: 'Alert thresholds (percent)' }).inputValue()).toBe('10, 25');
    await quotaSection(page).getByText("10% of this month's limit used ($0.0006 of $0.004).").waitFor();
    const saved = await request(server, 'GET', `/api/assistants/${assistantId}/quota`, { token: teacher.token });
    expect([saved.body.cost_per_month_usd, saved.body.alert_thresholds]).toEqual([0.004, [10, 25]]);

    // Emptied, the limit is removed.
    await quotaSection(page).getByRole('textbox', { name: 'Monthly cost limit (US dollars)' }).fill('');
    await quotaSection(page).getByRole('button', { name: 'Set limit' }).click();
    await quotaSection(page).getByText('No limit now: the limit is removed.').waitFor();
    await quotaSection(page)
      .getByText(/No monthly cost limit is set\. This month so far: \$0\.0006\./)
      .waitFor();
    expect(
      (await request(server, 'GET', `/api/assistants/${assistantId}/quota`, { token: teacher.token })).body.cost_per_month_usd,
    ).toBeNull();
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 90_000);

  it('is accessible at 375 px without scrolling sideways', async () => {
    await request(server, 'PUT', `/api/assistants/${assistantId}/quota`, {
      token: teacher.token,
      body: { cost_per_month_usd: 0.0005, alert_thresholds: [50, 80, 100] },
    });
    const { page, context } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    await page.goto(`${server.baseUrl}/assistants/${assistantId}`);
    await quotaSection(page)
      .getByText(/limit is used up/)
      .waitFor();
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await quotaSection(page).scrollIntoViewIfNeeded();
    await screenshot(page, 'assistant-cost-limit-375');
    await context.close();
  }, 60_000);
});
