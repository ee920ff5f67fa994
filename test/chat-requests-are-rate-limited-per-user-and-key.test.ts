/**
 * Chat requests (`/v1/chat/completions` and `/lamb/v1/completions`) are limited per user and per
 * API key, counted in the store, over real HTTP on both dialects: past a limit the answer is 429
 * with Retry-After before any model is called; a user's keys share the user's limit; two servers
 * over one database share the counts; other users and other endpoints are not affected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const LIMITS = { CHAT_REQUESTS_PER_USER_MAX: '4', CHAT_REQUESTS_PER_API_KEY_MAX: '2', CHAT_RATE_WINDOW_SECONDS: '3600' };

describe.each(TEST_DIALECTS)('chat rate limits on %s', (dialect) => {
  let first: TestServer;
  let second: TestServer;
  let adminToken: string;
  let modelId: string;
  let assistantId: number;

  const chat = (server: TestServer, token: string) =>
    request(server, 'POST', '/v1/chat/completions', { token, body: { model: modelId, messages: [{ role: 'user', content: 'hello' }] } });
  const lambChat = (server: TestServer, token: string) =>
    request(server, 'POST', `/lamb/v1/completions?assistant=${assistantId}`, {
      token,
      body: { messages: [{ role: 'user', content: 'hello' }] },
    });
  const newKey = async (user: CreatedUser, name: string) =>
    (await request(first, 'POST', '/api/api-keys', { token: user.token, body: { name } })).body.key as string;

  function expectRateLimited(response: Awaited<ReturnType<typeof chat>>, what: string): void {
    expect(response.status, response.text).toBe(429);
    expect(response.body.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
    expect(response.body.error.message).toContain(what);
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  }

  beforeAll(async () => {
    first = await startTestServer(dialect, { environment: LIMITS });
    second = await startTestServer(dialect, { database: first.database, environment: LIMITS });
    adminToken = await loginAsAdmin(first);
    const created = await request(first, 'POST', '/api/assistants', {
      token: adminToken,
      body: { name: 'Echo', system_prompt: 'Echo.', metadata: { connector: 'bypass', llm: 'debug-bypass' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(
      (await request(first, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: adminToken, body: { published: true } })).status,
    ).toBe(200);
    assistantId = created.body.id;
    modelId = `lamb_assistant.${assistantId}`;
  });

  afterAll(async () => {
    await possiblyUnset(second)?.close();
    await possiblyUnset(first)?.close();
  });

  it("limits one user's chats across both chat endpoints and both servers, and leaves other users and endpoints alone", async () => {
    const ada = await createUser(first, adminToken, { email: `ada-${dialect}@merino.test`, role: 'learner' });
    const grace = await createUser(first, adminToken, { email: `grace-${dialect}@merino.test`, role: 'learner' });
    expect((await chat(first, ada.token)).status).toBe(200);
    expect((await lambChat(second, ada.token)).status).toBe(200);
    expect((await chat(second, ada.token)).status).toBe(200);
    expect((await lambChat(first, ada.token)).status).toBe(200);
    expectRateLimited(await chat(first, ada.token), 'this user');
    expectRateLimited(await chat(second, ada.token), 'this user');
    expectRateLimited(await lambChat(second, ada.token), 'this user');
    expect((await chat(first, grace.token)).status).toBe(200);
    expect((await request(first, 'GET', '/v1/models', { token: ada.token })).status).toBe(200);
    expect((await request(second, 'GET', '/api/me', { token: ada.token })).status).toBe(200);
  });

  it('limits each API key on its own, and all of a user’s keys together by the user’s limit', async () => {
    const lin = await createUser(first, adminToken, { email: `lin-${dialect}@merino.test`, role: 'creator' });
    const [firstKey, secondKey, thirdKey] = [await newKey(lin, 'one'), await newKey(lin, 'two'), await newKey(lin, 'three')];
    expect((await chat(first, firstKey)).status).toBe(200);
    expect((await chat(second, firstKey)).status).toBe(200);
    expectRateLimited(await chat(first, firstKey), 'this API key');
    expect((await chat(second, secondKey)).status).toBe(200);
    // The refused request above still counted against the user: 2 + 1 + 1 = 4 uses the user's limit up.
    expectRateLimited(await chat(first, thirdKey), 'this user');
    expectRateLimited(await chat(first, lin.token), 'this user');
  });

  it('refuses a limited request before it reaches the model or the usage log', async () => {
    const max = await createUser(first, adminToken, { email: `max-${dialect}@merino.test`, role: 'learner' });
    for (let index = 0; index < 4; index += 1) expect((await chat(first, max.token)).status).toBe(200);
    const usageBefore = await first.store.db.selectFrom('usage_logs').select('id').where('user_id', '=', max.id).execute();
    expectRateLimited(await chat(first, max.token), 'this user');
    const usageAfter = await first.store.db.selectFrom('usage_logs').select('id').where('user_id', '=', max.id).execute();
    expect(usageAfter).toHaveLength(usageBefore.length);
    expect(usageBefore).toHaveLength(4);
  });
});
