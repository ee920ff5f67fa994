/**
 * Proves over real HTTP, on SQLite and PostgreSQL, with the fake OpenAI server, that every chat
 * request leaves one `usage_logs` row whose `outcome` says how it really ended: `completed` for an
 * answer, `failed:<code>` when the provider fails (500 → `failed:upstream_error`, 429 →
 * `failed:upstream_rate_limited`), and `cancelled` when the client goes away, mid-stream or before
 * the first byte. The outcome values are the ones src/completions/completion-service.ts writes.
 *
 * Why this file exists: recording failed or cancelled requests as `completed` failed no test, so
 * usage reports could count every failure as a success.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

/** How long a test waits for a row the server writes after the client has gone. */
const BACKGROUND_WAIT_MILLISECONDS = 10_000;

describe.each(TEST_DIALECTS)('the outcome in usage_logs on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let model: string;
  let counter = 0;

  function nextRequestId(): string {
    counter += 1;
    return `outcome-${dialect}-${counter}`;
  }

  async function rowsOf(requestId: string) {
    return server.store.db.selectFrom('usage_logs').selectAll().where('request_id', '=', requestId).execute();
  }

  /** The one usage row of `requestId`, once the server has written it. */
  async function usageRow(requestId: string) {
    const deadline = Date.now() + BACKGROUND_WAIT_MILLISECONDS;
    for (;;) {
      const rows = await rowsOf(requestId);
      if (rows.length > 0) {
        expect(rows).toHaveLength(1);
        return rows[0]!;
      }
      if (Date.now() > deadline) throw new Error(`no usage_logs row for ${requestId}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * The clients that abandon a request use an undici Agent of their own, destroyed afterwards: an
   * abandoned socket of the shared global dispatcher would otherwise stay open until Node's request
   * timeout and hold up the server's close() in afterAll.
   */
  function chat(requestId: string, options: { stream: boolean; signal?: AbortSignal; dispatcher?: Agent }) {
    return undiciFetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ model, stream: options.stream, messages: [{ role: 'user', content: 'Tell me about cells.' }] }),
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(options.dispatcher !== undefined && { dispatcher: options.dispatcher }),
    });
  }

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, { environment: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Cell tutor',
        system_prompt: 'You teach biology.',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] },
      },
    });
    expect(created.status, created.text).toBe(201);
    model = `lamb_assistant.${created.body.id}`;
  });

  beforeEach(() => {
    fake.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it.each([false, true])('records an answered request (stream: %s) as completed, with the tokens the provider reported', async (stream) => {
    fake.enqueue({ text: 'Cells are the units of life.', finishReason: 'stop', usage: { prompt_tokens: 11, completion_tokens: 7 } });
    const requestId = nextRequestId();
    const response = await chat(requestId, { stream });
    expect(response.status).toBe(200);
    const body = await response.text();
    if (stream) expect(body).toContain('[DONE]');
    expect(await usageRow(requestId)).toMatchObject({
      outcome: 'completed',
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
      connector: 'openai',
      model: 'gpt-4o-mini',
    });
  });

  it.each([
    { status: 500, stream: false, answered: 502, outcome: 'failed:upstream_error' },
    { status: 500, stream: true, answered: 502, outcome: 'failed:upstream_error' },
    { status: 429, stream: false, answered: 429, outcome: 'failed:upstream_rate_limited' },
  ])('records a provider $status (stream: $stream) as $outcome', async ({ status, stream, answered, outcome }) => {
    fake.enqueue({ status });
    const requestId = nextRequestId();
    const response = await chat(requestId, { stream });
    expect(response.status).toBe(answered);
    await response.text();
    const row = await usageRow(requestId);
    expect(row.outcome).toBe(outcome);
    expect(row.outcome).not.toBe('completed');
  });

  it('records a stream the client abandons midway as cancelled', async () => {
    const pieces = Array.from({ length: 40 }, (_, index) => `piece ${index} `);
    fake.enqueue({ chunks: pieces, chunkDelayMs: 200 });
    const requestId = nextRequestId();
    const controller = new AbortController();
    const agent = new Agent();
    const response = await chat(requestId, { stream: true, signal: controller.signal, dispatcher: agent });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('piece 0')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      received += new TextDecoder().decode(value);
    }
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await agent.destroy();
    expect((await usageRow(requestId)).outcome).toBe('cancelled');
  });

  it('records a request the client abandons before the first byte as cancelled', async () => {
    fake.enqueue({ text: 'Too late.', delayMs: 60_000 });
    const requestId = nextRequestId();
    const controller = new AbortController();
    const agent = new Agent();
    const attempt = chat(requestId, { stream: false, signal: controller.signal, dispatcher: agent }).catch((error: unknown) => error);
    const deadline = Date.now() + BACKGROUND_WAIT_MILLISECONDS;
    while (fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions')).length === 0) {
      if (Date.now() > deadline) throw new Error('the provider never got the request');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    controller.abort();
    expect(await attempt).toBeInstanceOf(Error);
    await agent.destroy();
    expect((await usageRow(requestId)).outcome).toBe('cancelled');
  });
});
