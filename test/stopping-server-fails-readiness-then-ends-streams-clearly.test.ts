/**
 * Proves a graceful stop as a load balancer and its clients see it: after SIGTERM, `/readyz`
 * answers 503 `server_shutting_down` at once while `/healthz` and ordinary requests are still
 * served (SHUTDOWN_DRAIN_DELAY_MS); a stream that finishes within SHUTDOWN_STREAM_GRACE_MS ends
 * normally with `[DONE]`; a stream still running after it ends with a `server_shutting_down`
 * error chunk instead of a cut connection; and the process then exits cleanly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from './support/test-server.js';

const PROVIDER_KEY = 'sk-provider-key-for-the-drain-test';

describe.each(TEST_DIALECTS)('a server stopping on %s', (dialect) => {
  let database: TestDatabase;
  let provider: FakeOpenAiServer;
  let server: ServerProcess;
  let token: string;
  let model: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    provider = await startFakeOpenAiServer({ apiKey: PROVIDER_KEY });
    server = await startServerProcess(database, {
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_API_KEY: PROVIDER_KEY,
      SHUTDOWN_DRAIN_DELAY_MS: '1500',
      SHUTDOWN_STREAM_GRACE_MS: '1000',
      SHUTDOWN_TIMEOUT_MS: '15000',
    });
    token = (await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body.token;
    const assistant = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Tutor',
        metadata: { connector: 'openai', llm: 'gpt-4o-mini', prompt_processor: 'simple_augment', rag_processor: 'no_rag' },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    model = `lamb_assistant.${assistant.body.id}`;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.kill();
    await possiblyUnset(provider)?.close();
    await possiblyUnset(database)?.drop();
  });

  function streamAnswer(): Promise<string> {
    return fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'Tell me about rivers.' }] }),
    }).then((response) => {
      expect(response.status).toBe(200);
      return response.text();
    });
  }

  it('fails readiness first, finishes short streams, and ends long ones with a clear error', async () => {
    expect((await request(server, 'GET', '/readyz')).status).toBe(200);
    provider.enqueue(
      { chunks: ['Rivers ', 'carry ', 'water ', 'to ', 'the sea.'], chunkDelayMs: 100 },
      { chunks: ['Rivers ', 'meander '], hangAfterChunks: 2 },
    );
    // One at a time, so the provider's replies go to them in this order.
    const short = streamAnswer();
    while (provider.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const long = streamAnswer();
    while (provider.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const exited = new Promise<number | null>((resolve) => server.child.on('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));

    const readiness = await request(server, 'GET', '/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body.error.code).toBe('server_shutting_down');
    expect((await request(server, 'GET', '/healthz')).status).toBe(200);
    expect((await request(server, 'GET', '/v1/models', { token })).status).toBe(200);

    const shortText = await short;
    expect(shortText).toContain('the sea.');
    expect(shortText.trimEnd().endsWith('data: [DONE]')).toBe(true);

    const longText = await long;
    expect(longText).toContain('Rivers');
    expect(longText).toContain('"code":"server_shutting_down"');
    expect(longText).not.toContain('[DONE]');
    expect(await exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');
  }, 60_000);
});
