/**
 * Proves end to end in a real Chromium that a tiny token quota set from the admin pages stops a
 * creator's chat: a system admin creates an organization ("New organization"), creates a creator in
 * it on /admin/users and sets its monthly token limit on /admin/settings; the creator chats with
 * their assistant (answered by the fake model with fixed token usage) until the server refuses with
 * 429 quota_exceeded, and the chat page shows the server's message naming the limit and when it
 * resets, in UTC and in the reader's own zone (Tokyo here); then the admin sees the use on
 * /admin/usage, the tokens chart painted and the tokens gauge over the limit. Every page visited passes axe-core (no serious or critical violation).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { sendMessage } from './support/chat-pages.js';
import { chartNamed, paintedPixels, tableOf } from './support/chart-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, login, request, startTestServer, type TestServer } from './support/test-server.js';

const TOKEN_LIMIT = 1000;
/** Every answer of the fake model counts 300 + 100 tokens. */
const ANSWER_USAGE = { prompt_tokens: 300, completion_tokens: 100 };
const CREATOR = { name: 'Ada Teacher', email: 'ada@science.test', password: 'a-long-initial-password' };

describe('a tiny token quota set in the admin pages', () => {
  let server: TestServer;
  let provider: FakeOpenAiServer;
  let browser: Browser;

  beforeAll(async () => {
    provider = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', { environment: { OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(provider)?.close();
  });

  it('stops the chat with a 429 naming the limit and its reset, and shows the use over the limit on /admin/usage', async () => {
    const admin = await openPage(browser);
    await logInThroughPage(admin.page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);

    // An organization, made in the browser.
    await admin.page.goto(`${server.baseUrl}/admin/organizations`);
    await expectOneHeading(admin.page, 'Organizations');
    await admin.page.getByRole('button', { name: 'New organization', exact: true }).click();
    const newOrganization = admin.page.getByRole('dialog', { name: 'New organization' });
    await newOrganization.getByRole('textbox', { name: 'Name' }).fill('Faculty of Science');
    await newOrganization.getByRole('textbox', { name: 'Slug' }).fill('science');
    await newOrganization.getByRole('button', { name: 'Create' }).click();
    await admin.page.getByText('Organization "Faculty of Science" created.').waitFor();
    await expectAccessible(admin.page);

    // A creator in it.
    await admin.page.goto(`${server.baseUrl}/admin/users`);
    await expectOneHeading(admin.page, 'People');
    await admin.page.getByRole('button', { name: 'New person' }).click();
    const newPerson = admin.page.getByRole('dialog', { name: 'New person' });
    await newPerson.getByRole('textbox', { name: 'Name' }).fill(CREATOR.name);
    await newPerson.getByRole('textbox', { name: 'Email' }).fill(CREATOR.email);
    await newPerson.getByRole('combobox', { name: 'Role' }).selectOption('creator');
    await newPerson.getByRole('combobox', { name: 'Organization' }).selectOption({ label: 'Faculty of Science' });
    await newPerson.getByLabel('Initial password').fill(CREATOR.password);
    await newPerson.getByRole('button', { name: 'Create' }).click();
    await admin.page.getByText(`${CREATOR.name} can now log in.`).waitFor();
    await expectAccessible(admin.page);

    // Its monthly token limit: tiny.
    await admin.page.goto(`${server.baseUrl}/admin/settings`);
    await expectOneHeading(admin.page, 'Organization settings');
    await admin.page.getByRole('combobox', { name: 'Organization', exact: true }).selectOption({ label: 'Faculty of Science' });
    const monthly = admin.page.getByRole('textbox', { name: 'Tokens per month (whole organization)', exact: true });
    await expect.poll(() => monthly.inputValue()).toBe('');
    await monthly.fill(String(TOKEN_LIMIT));
    await admin.page.getByRole('button', { name: 'Save settings' }).click();
    await admin.page.getByText('Settings saved.').waitFor();
    await expectAccessible(admin.page);

    // The creator's assistant, through the API: the pages that make assistants are not what is proven here.
    const creatorToken = await login(server, CREATOR.email, CREATOR.password);
    const created = await request(server, 'POST', '/api/assistants', {
      token: creatorToken,
      body: {
        name: 'Cell biology',
        system_prompt: 'You teach biology.',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] },
      },
    });
    expect(created.status, created.text).toBe(201);
    const assistantId = created.body.id as number;

    // The creator chats until the limit refuses.
    // A zone far from UTC: the chat names the reset in the reader's own time as well.
    const creator = await openPage(browser, { timezoneId: 'Asia/Tokyo' });
    await logInThroughPage(creator.page, server.baseUrl, CREATOR.email, CREATOR.password);
    await creator.page.goto(`${server.baseUrl}/chat/${assistantId}`);
    const refusal = creator.page.getByText(
      /monthly token limit \(tokens_per_month: 1000 tokens\) is used up; it resets at \d{4}-\d\d-01 00:00 UTC/,
    );
    let answered = 0;
    for (let attempt = 1; attempt <= 6 && (await refusal.count()) === 0; attempt += 1) {
      provider.enqueue({ text: `Cells divide, answer ${attempt}.`, usage: ANSWER_USAGE });
      await sendMessage(creator.page, `Question ${attempt}: how do cells divide?`);
      const answer = creator.page.getByText(`Cells divide, answer ${attempt}.`);
      await Promise.race([answer.waitFor(), refusal.waitFor()]);
      if ((await answer.count()) > 0) {
        answered += 1;
        await creator.page.getByRole('textbox', { name: 'Message' }).and(creator.page.locator(':enabled')).waitFor();
      }
    }
    await refusal.waitFor();
    // 400 tokens an answer: the third, admitted alone below the limit, passes it by at most one answer.
    expect(answered).toBe(3);
    provider.reset();
    const direct = await request(server, 'POST', '/v1/chat/completions', {
      token: creatorToken,
      body: { model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: 'One more?' }] },
    });
    expect(direct.status).toBe(429);
    expect(direct.body.error.code).toBe('quota_exceeded');
    expect(provider.requests.length).toBe(0);
    const localReset = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(
      new Date(direct.body.error.details.resets_at as string),
    );
    await creator.page.getByText(`That is ${localReset} your time.`).waitFor();
    await expectAccessible(creator.page);
    await screenshot(creator.page, 'chat-stopped-by-a-token-quota');
    expect(creator.pageErrors).toEqual([]);
    await creator.context.close();

    // The admin sees it on /admin/usage: the chart drawn, the gauge past the limit.
    await admin.page.emulateMedia({ reducedMotion: 'reduce' });
    await admin.page.goto(`${server.baseUrl}/admin/usage`);
    await expectOneHeading(admin.page, 'Usage');
    // A system admin's own organization comes first; the faculty is picked like on the settings page.
    await admin.page.getByRole('combobox', { name: 'Organization', exact: true }).selectOption({ label: 'Faculty of Science' });
    const tokens = chartNamed(admin.page, 'Tokens per day');
    await tokens.waitFor();
    await expect.poll(() => tableOf(tokens)).toEqual([[expect.any(String), '3', '900', '300', '1,200']]);
    await expect.poll(() => paintedPixels(tokens)).toBeGreaterThan(500);
    const gauge = chartNamed(admin.page, 'Tokens this month');
    expect(await tableOf(gauge)).toEqual([['This month', '1,200', '1,000', '120%']]);
    await gauge.getByText('1,200 of 1,000 (120%)').waitFor();
    expect(await paintedPixels(gauge)).toBeGreaterThan(100);
    expect(await tableOf(chartNamed(admin.page, 'Top users'))).toEqual([[CREATOR.name, '3', '1,200', expect.any(String)]]);
    await expectAccessible(admin.page);
    await screenshot(admin.page, 'admin-usage-after-a-token-quota');
    expect(admin.pageErrors).toEqual([]);
    await admin.context.close();
  }, 180_000);
});
