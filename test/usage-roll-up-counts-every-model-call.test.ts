/**
 * Proves over real HTTP, on SQLite and PostgreSQL, with the fake OpenAI server, that the daily
 * usage roll-up counts every model call exactly: 50 concurrent chats (each usage row written in
 * its own transaction) and 50 concurrent roll-up writes to one key give exact totals; an assistant
 * used as a tool by an orchestrator counts its model's tokens for the request's user and the
 * orchestrator; and a query rewrite by the small fast model is counted for the request's user and
 * assistant. Before this change nested runs and rewrites wrote no usage row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpUsage } from '../src/usage/usage-roll-up.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest, type ScriptedReply } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const TODAY = new Date().toISOString().slice(0, 10);

/** Replies by model, so the order in which calls arrive does not matter. */
function reply(recorded: RecordedRequest): ScriptedReply {
  const body = recorded.body as { model: string; messages: Array<{ role: string }>; tools?: unknown[] };
  if (body.model === 'gpt-4.1-nano') return { text: 'x = 2', usage: { prompt_tokens: 11, completion_tokens: 4 } };
  if (body.model === 'gpt-4.1-mini') return { text: 'glacier melt causes', usage: { prompt_tokens: 9, completion_tokens: 2 } };
  if (body.messages.some((message) => message.role === 'tool'))
    return { text: 'Final.', usage: { prompt_tokens: 30, completion_tokens: 6 } };
  if (body.tools !== undefined && body.tools.length > 0)
    return {
      toolCalls: [{ id: 'call_1', name: 'math_expert', arguments: JSON.stringify({ query: 'Solve x + 1 = 3' }) }],
      usage: { prompt_tokens: 20, completion_tokens: 5 },
    };
  return { text: 'Answer.', usage: { prompt_tokens: 7, completion_tokens: 3 } };
}

describe.each(TEST_DIALECTS)('the usage roll-up on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let systemAdmin: string;
  let creator: CreatedUser;

  async function assistant(token: string, metadata: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<number> {
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: `Assistant ${Math.random()}`, metadata: { assistant_type: 'multi_tool', connector: 'openai', ...metadata }, ...extra },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.id as number;
  }

  async function chat(token: string, assistantId: number, requestId: string) {
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token,
      headers: { 'x-request-id': requestId },
      body: { model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: 'How do glaciers move?' }] },
    });
    expect(answer.status, answer.text).toBe(200);
  }

  const report = async (token: string, query: string) =>
    (await request(server, 'GET', `/api/usage?from=${TODAY}&to=${TODAY}${query}`, { token })).body;
  const rowsOf = (requestId: string) =>
    server.store.db.selectFrom('usage_logs').selectAll().where('request_id', '=', requestId).orderBy('model').execute();

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    fake.setResponder(reply);
    server = await startTestServer(dialect, {
      environment: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test', RUN_RECORD_WINDOW_MS: '0', INGESTION_POLL_MS: '20' },
    });
    systemAdmin = await loginAsAdmin(server);
    creator = await createUser(server, systemAdmin, { email: `roll-up-creator-${dialect}@merino.test`, role: 'creator' });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('gives exact totals for 50 concurrent chats, each written in its own transaction', async () => {
    const tutor = await assistant(creator.token, { llm: 'gpt-4o-mini', tools: [] });
    await Promise.all(Array.from({ length: 50 }, (_, index) => chat(creator.token, tutor, `concurrent-${dialect}-${index}`)));
    const totals = (await report(creator.token, `&assistant_id=${tutor}`)).totals;
    // gpt-4o-mini at 0.15 and 0.60 dollars per million tokens: 7 × 0.15 + 3 × 0.6 = 2.85, rounded to 3 micro-dollars a call.
    expect(totals).toEqual({ requests: 50, prompt_tokens: 350, completion_tokens: 150, total_tokens: 500, cost_usd: 0.00015 });
    const logged = await server.store.db
      .selectFrom('usage_logs')
      .select((builder) => [
        builder.fn.countAll<number | string>().as('rows'),
        builder.fn.sum<number | string>('prompt_tokens').as('prompt'),
      ])
      .where('assistant_id', '=', tutor)
      .executeTakeFirstOrThrow();
    expect([Number(logged.rows), Number(logged.prompt)]).toEqual([50, 350]);
  });

  it('adds 50 concurrent roll-up writes to one key without losing any', async () => {
    const row = {
      created_at: '2025-05-05T08:00:00.000Z',
      organization_id: 1,
      user_id: creator.id,
      assistant_id: 424_242,
      connector: 'openai',
      model: 'gpt-4o',
      prompt_tokens: 1_000,
      completion_tokens: 100,
      total_tokens: 1_100,
      duration_ms: 1,
      outcome: 'completed',
      request_id: null,
    };
    await Promise.all(
      Array.from({ length: 50 }, () => server.store.db.transaction().execute((transaction) => rollUpUsage(transaction, [row]))),
    );
    const stored = await server.store.db.selectFrom('usage_daily').selectAll().where('assistant_id', '=', 424_242).execute();
    expect(stored).toHaveLength(1);
    // gpt-4o at 2.50 and 10 dollars per million: 2,500 + 1,000 micro-dollars a call.
    expect([stored[0]!.requests, stored[0]!.prompt_tokens, stored[0]!.completion_tokens, stored[0]!.cost_micro_usd].map(Number)).toEqual([
      50, 50_000, 5_000, 175_000,
    ]);
  });

  it("counts an assistant used as a tool for the request's user and the orchestrator, with the target's model", async () => {
    const target = await assistant(creator.token, { llm: 'gpt-4.1-nano', tools: [] }, { description: 'Solves algebra.' });
    const orchestrator = await assistant(creator.token, {
      llm: 'gpt-4o-mini',
      tools: [{ type: 'assistant', assistant_id: target, name: 'math_expert' }],
    });
    const requestId = `nested-${dialect}`;
    await chat(systemAdmin, orchestrator, requestId);
    const rows = await rowsOf(requestId);
    const adminId = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.id;
    expect(rows.map((row) => [row.model, row.assistant_id, row.user_id, row.prompt_tokens, row.completion_tokens, row.outcome])).toEqual([
      ['gpt-4.1-nano', orchestrator, adminId, 11, 4, 'completed'],
      ['gpt-4o-mini', orchestrator, adminId, 50, 11, 'completed'],
    ]);
    const byModel = await report(creator.token, `&assistant_id=${orchestrator}&group_by=model`);
    expect(byModel.groups.map((group: { key: string; prompt_tokens: number }) => [group.key, group.prompt_tokens])).toEqual([
      ['gpt-4o-mini', 50],
      ['gpt-4.1-nano', 11],
    ]);
    expect((await report(creator.token, `&assistant_id=${target}`)).totals.requests).toBe(0);
  });

  it("counts a query rewrite by the small fast model for the request's user and assistant", async () => {
    const organizationId = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id;
    const fastModel = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: systemAdmin,
      body: { small_fast_model: { connector: 'openai', model: 'gpt-4.1-mini' } },
    });
    expect(fastModel.status, fastModel.text).toBe(200);
    const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token: creator.token, body: { name: 'Glaciers' } })).body
      .id;
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token: creator.token,
      body: { documents: [{ text: 'Glaciers move by internal deformation and basal sliding.' }] },
    });
    expect((await waitForJob(server, creator.token, knowledgeBase, queued.body.documents[0].job_id)).status).toBe('completed');
    const tutor = await assistant(
      creator.token,
      {
        llm: 'gpt-4o-mini',
        tools: [{ type: 'simple_rag', config: { collections: [String(knowledgeBase)], query_mode: 'context_aware' } }],
      },
      { prompt_template: 'Context:{context}Question:{user_input}' },
    );
    const requestId = `rewrite-${dialect}`;
    await chat(creator.token, tutor, requestId);
    const rows = await rowsOf(requestId);
    expect(rows.map((row) => [row.model, row.assistant_id, row.user_id, row.prompt_tokens, row.completion_tokens, row.outcome])).toEqual([
      ['gpt-4.1-mini', tutor, creator.id, 9, 2, 'completed'],
      ['gpt-4o-mini', tutor, creator.id, 7, 3, 'completed'],
    ]);
    expect((await report(creator.token, `&assistant_id=${tutor}`)).totals).toMatchObject({
      requests: 2,
      prompt_tokens: 16,
      completion_tokens: 5,
    });
  });
});
