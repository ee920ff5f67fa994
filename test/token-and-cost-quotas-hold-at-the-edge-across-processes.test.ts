/**
 * The token and cost quotas (docs/quotas.md), over real HTTP on both stores, with two servers over
 * one database (on PostgreSQL the second is a separate process): 50 chat requests at once at the
 * edge of an organization's monthly token limit pass it by at most one request's tokens; refused
 * requests answer 429 quota_exceeded naming the limit with its reset time (details.resets_at and
 * Retry-After) before any model call, and nothing is charged for them. Also a person's daily limit
 * on the kept-chat API, the organization's cost limit and an assistant's own cost limit with its
 * alerts, and a reservation left by a killed run that stops counting once it expires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';

/** Every model call of these suites uses exactly this many tokens. */
const PROMPT_TOKENS = 60;
const COMPLETION_TOKENS = 40;
const REQUEST_TOKENS = PROMPT_TOKENS + COMPLETION_TOKENS;
/** $10 per million tokens each way: one request costs $0.001. */
const REQUEST_COST_USD = 0.001;
const CONCURRENT_REQUESTS = 50;

describe.each(TEST_DIALECTS)('token and cost quotas on %s', (dialect) => {
  let fakeOpenAi: FakeOpenAiServer;
  let first: TestServer;
  let second: TestServer | undefined;
  let secondProcess: ServerProcess | undefined;
  let adminToken: string;
  let servers: { baseUrl: string }[];
  let sequence = 0;

  const environment = (): Record<string, string> => ({
    OPENAI_BASE_URL: fakeOpenAi.baseUrl,
    OPENAI_API_KEY: 'sk-quota',
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    RUN_RECORD_WINDOW_MS: '0',
    HOT_READ_CACHE_MS: '0',
    CHAT_REQUESTS_PER_USER_MAX: '100000',
    CHAT_REQUESTS_PER_API_KEY_MAX: '100000',
  });

  beforeAll(async () => {
    fakeOpenAi = await startFakeOpenAiServer();
    // Slow enough that the 50 requests overlap: the quota must hold while many are in flight.
    fakeOpenAi.setResponder(() => ({
      text: 'ok',
      usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS },
      delayMs: 150,
    }));
    first = await startTestServer(dialect, { environment: environment() });
    if (dialect === 'postgres') {
      secondProcess = await startServerProcess(first.database, environment());
      servers = [first, secondProcess];
    } else {
      second = await startTestServer(dialect, { database: first.database, environment: environment() });
      servers = [first, second];
    }
    adminToken = await loginAsAdmin(first);
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(secondProcess)?.kill();
    await possiblyUnset(second)?.close();
    await possiblyUnset(first)?.close();
    await possiblyUnset(fakeOpenAi)?.close();
  });

  /** A new organization with a creator, one published assistant and its own price for the model. */
  async function organizationWithAssistant(): Promise<{
    organizationId: number;
    assistantId: number;
    creator: { id: number; token: string };
  }> {
    sequence += 1;
    const slug = `quota-${dialect}-${sequence}`;
    const organization = await request(first, 'POST', '/api/organizations', { token: adminToken, body: { name: slug, slug } });
    expect(organization.status, organization.text).toBe(201);
    const organizationId = organization.body.id as number;
    const creator = await createUser(first, adminToken, {
      email: `creator-${slug}@merino.test`,
      role: 'creator',
      organization_id: organizationId,
    });
    const prices = await request(first, 'PUT', `/api/organizations/${organizationId}/model-prices`, {
      token: adminToken,
      body: { prices: [{ model: 'quota-model', input_usd_per_million: 10, output_usd_per_million: 10 }] },
    });
    expect(prices.status, prices.text).toBe(200);
    const created = await request(first, 'POST', '/api/assistants', {
      token: creator.token,
      body: { name: 'Counted', system_prompt: 'Answer.', metadata: { connector: 'openai', llm: 'quota-model' } },
    });
    expect(created.status, created.text).toBe(201);
    const published = await request(first, 'PUT', `/api/assistants/${created.body.id}/publish`, {
      token: creator.token,
      body: { published: true },
    });
    expect(published.status, published.text).toBe(200);
    return { organizationId, assistantId: created.body.id as number, creator };
  }

  const chat = (server: { baseUrl: string }, token: string, assistantId: number) =>
    request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: 'hello' }] },
    });

  async function setLimits(organizationId: number, limits: Record<string, number | null>): Promise<void> {
    const response = await request(first, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: adminToken,
      body: { limits },
    });
    expect(response.status, response.text).toBe(200);
  }

  async function organizationUsage(organizationId: number): Promise<{ requests: number; tokens: number; logs: number }> {
    const rows = await first.store.db.selectFrom('usage_daily').selectAll().where('organization_id', '=', organizationId).execute();
    const logs = await first.store.db.selectFrom('usage_logs').select('id').where('organization_id', '=', organizationId).execute();
    return {
      requests: rows.reduce((sum, row) => sum + Number(row.requests), 0),
      tokens: rows.reduce((sum, row) => sum + Number(row.prompt_tokens) + Number(row.completion_tokens), 0),
      logs: logs.length,
    };
  }

  function nextMonthStart(): string {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  }

  function expectQuotaExceeded(response: JsonResponse, limit: string, resetsAt: string): void {
    expect(response.status, response.text).toBe(429);
    expect(response.body.error).toMatchObject({ code: 'quota_exceeded', type: 'rate_limit_error' });
    expect(response.body.error.message).toContain(limit);
    // The message says the reset for people (minute and UTC); details carry the exact time.
    expect(response.body.error.message).toContain(`resets at ${resetsAt.slice(0, 16).replace('T', ' ')} UTC`);
    expect(response.body.error.details).toMatchObject({ resets_at: resetsAt });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  }

  it('lets 50 requests at once across two servers pass the monthly token limit by at most one request, and charges none refused', async () => {
    const { organizationId, assistantId, creator } = await organizationWithAssistant();
    // Two requests give the month its mean per request; the limit then leaves room for 10.5 more.
    for (const server of servers) expect((await chat(server, creator.token, assistantId)).status).toBe(200);
    const limit = 2 * REQUEST_TOKENS + Math.round(10.5 * REQUEST_TOKENS);
    await setLimits(organizationId, { tokens_per_month: limit });
    const modelCallsBefore = fakeOpenAi.requests.length;

    const responses = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, (_, index) =>
        chat(servers[index % servers.length] as { baseUrl: string }, creator.token, assistantId),
      ),
    );
    const answered = responses.filter((response) => response.status === 200).length;
    const refused = responses.filter((response) => response.status !== 200);
    for (const response of refused) expectQuotaExceeded(response, 'tokens_per_month', nextMonthStart());
    expect(answered).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);

    // Requests refused in flight are answered as the rest of the limit frees; then the month is used up.
    let last: JsonResponse;
    do last = await chat(servers[0] as { baseUrl: string }, creator.token, assistantId);
    while (last.status === 200);
    expectQuotaExceeded(last, 'tokens_per_month', nextMonthStart());
    expect(last.body.error.details.reason).toBe('exhausted');

    const usage = await organizationUsage(organizationId);
    console.log(
      `QUOTA-FIGURES ${dialect}: answered ${answered}/${CONCURRENT_REQUESTS} at once, limit ${limit}, used ${usage.tokens}, overshoot ${usage.tokens - limit}`,
    );
    expect(usage.tokens - limit).toBeLessThanOrEqual(REQUEST_TOKENS);
    expect(usage.tokens).toBeGreaterThanOrEqual(limit);
    // Nothing was charged, logged or sent to the model for a refused request.
    expect(usage.tokens).toBe(usage.requests * REQUEST_TOKENS);
    expect(usage.logs).toBe(usage.requests);
    expect(fakeOpenAi.requests.length - modelCallsBefore).toBe(usage.requests - 2);
    // Every reservation was settled with its run's usage.
    const held = await first.store.db.selectFrom('quota_reservations').select('id').where('organization_id', '=', organizationId).execute();
    expect(held).toHaveLength(0);
  }, 180_000);

  it('refuses a person past the daily token limit on the kept-chat API, before the model, until tomorrow; others chat on', async () => {
    const { organizationId, assistantId } = await organizationWithAssistant();
    const [ada, grace] = await Promise.all(
      ['ada', 'grace'].map((name) =>
        createUser(first, adminToken, {
          email: `${name}-${dialect}-${sequence}@merino.test`,
          role: 'learner',
          organization_id: organizationId,
        }),
      ),
    );
    await setLimits(organizationId, { tokens_per_user_per_day: 2 * REQUEST_TOKENS });
    const chatId = (await request(first, 'POST', '/api/chats', { token: ada!.token, body: { assistant_id: assistantId } })).body
      .id as number;
    const ask = (server: { baseUrl: string }) =>
      request(server, 'POST', `/api/chats/${chatId}/messages`, { token: ada!.token, body: { content: 'What is a cell?' } });
    expect((await ask(first)).status).toBe(200);
    expect((await ask(servers[1] as { baseUrl: string })).status).toBe(200);
    const modelCallsBefore = fakeOpenAi.requests.length;
    const now = new Date();
    const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
    expectQuotaExceeded(await ask(first), 'tokens_per_user_per_day', tomorrow);
    expectQuotaExceeded(await chat(servers[1] as { baseUrl: string }, ada!.token, assistantId), 'tokens_per_user_per_day', tomorrow);
    expect(fakeOpenAi.requests.length).toBe(modelCallsBefore);
    expect((await chat(first, grace!.token, assistantId)).status).toBe(200);
    expect((await organizationUsage(organizationId)).tokens).toBe(3 * REQUEST_TOKENS);
  }, 120_000);

  it("refuses past the organization's monthly cost limit, priced with its own model prices", async () => {
    const { organizationId, assistantId, creator } = await organizationWithAssistant();
    await setLimits(organizationId, { cost_per_month_usd: 3 * REQUEST_COST_USD });
    for (let index = 0; index < 3; index += 1)
      expect((await chat(servers[index % 2] as { baseUrl: string }, creator.token, assistantId)).status).toBe(200);
    const refused = await chat(first, creator.token, assistantId);
    expectQuotaExceeded(refused, 'cost_per_month_usd', nextMonthStart());
    expect(refused.body.error.details).toMatchObject({ limit: 'cost_per_month_usd', unit: 'usd', maximum: 3 * REQUEST_COST_USD });
    await setLimits(organizationId, { cost_per_month_usd: null });
    expect((await chat(first, creator.token, assistantId)).status).toBe(200);
  }, 120_000);

  it("refuses past an assistant's own cost limit and shows its owner each alert threshold crossed, audited once", async () => {
    const { organizationId, assistantId, creator } = await organizationWithAssistant();
    const set = await request(first, 'PUT', `/api/assistants/${assistantId}/quota`, {
      token: creator.token,
      body: { cost_per_month_usd: 4 * REQUEST_COST_USD, alert_thresholds: [50, 100] },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ cost_per_month_usd: 4 * REQUEST_COST_USD, spent_usd: 0, exceeded: false });
    for (let index = 0; index < 2; index += 1)
      expect((await chat(servers[index % 2] as { baseUrl: string }, creator.token, assistantId)).status).toBe(200);
    const half = await request(first, 'GET', `/api/assistants/${assistantId}/quota`, { token: creator.token });
    expect(half.body.spent_percent).toBe(50);
    expect(half.body.alerts).toMatchObject([
      { threshold: 50, crossed: true },
      { threshold: 100, crossed: false, crossed_at: null },
    ]);
    expect(typeof half.body.alerts[0].crossed_at).toBe('string');
    for (let index = 0; index < 2; index += 1) expect((await chat(first, creator.token, assistantId)).status).toBe(200);
    expectQuotaExceeded(
      await chat(servers[1] as { baseUrl: string }, creator.token, assistantId),
      'assistant cost_per_month_usd',
      nextMonthStart(),
    );
    const full = await request(servers[1] as { baseUrl: string }, 'GET', `/api/assistants/${assistantId}/quota`, { token: creator.token });
    expect(full.body).toMatchObject({ exceeded: true, spent_percent: 100, resets_at: nextMonthStart() });
    expect(full.body.alerts.every((alert: { crossed: boolean }) => alert.crossed)).toBe(true);
    const alerts = await first.store.db
      .selectFrom('audit_log')
      .select(['details', 'organization_id'])
      .where('action', '=', 'assistant.quota_alert')
      .where('target_id', '=', String(assistantId))
      .execute();
    expect(alerts.map((alert) => JSON.parse(alert.details).threshold).sort()).toEqual([100, 50]);
    expect(alerts.every((alert) => alert.organization_id === organizationId)).toBe(true);
  }, 120_000);

  it('stops counting a reservation left by a killed run once it expires, and settles none twice', async () => {
    const { organizationId, assistantId, creator } = await organizationWithAssistant();
    expect((await chat(first, creator.token, assistantId)).status).toBe(200);
    await setLimits(organizationId, { tokens_per_month: 2 * REQUEST_TOKENS });
    // What a process killed mid-run leaves: a reservation of the whole rest, already expired, and one still held.
    const past = new Date(Date.now() - 1_000).toISOString();
    const future = new Date(Date.now() + 600_000).toISOString();
    const reservation = {
      organization_id: organizationId,
      user_id: creator.id,
      assistant_id: assistantId,
      tokens: REQUEST_TOKENS,
      cost_micro_usd: 0,
    };
    await first.store.db
      .insertInto('quota_reservations')
      .values({ ...reservation, expires_at: past })
      .execute();
    expect((await chat(first, creator.token, assistantId)).status).toBe(200);
    await first.store.db
      .insertInto('quota_reservations')
      .values({ ...reservation, expires_at: future })
      .execute();
    await setLimits(organizationId, { tokens_per_month: 4 * REQUEST_TOKENS });
    const busy = await chat(first, creator.token, assistantId);
    // 200 used + 100 held by a live reservation + 100 estimated = 400: fits.
    expect(busy.status, busy.text).toBe(200);
    const refused = await chat(first, creator.token, assistantId);
    expectQuotaExceeded(refused, 'tokens_per_month', nextMonthStart());
    expect(refused.body.error.details.reason).toBe('in_use');
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(5);
    const left = await first.store.db
      .selectFrom('quota_reservations')
      .select('expires_at')
      .where('organization_id', '=', organizationId)
      .execute();
    expect(left.map((row) => row.expires_at)).toEqual([future]);
  }, 120_000);
});
