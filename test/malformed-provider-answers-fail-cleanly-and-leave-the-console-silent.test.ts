/**
 * Proves that a provider's malformed answer, streamed or whole, fails with a clean 502
 * `upstream_error` naming nothing of what it sent, and that nothing is written to the console
 * (where raw upstream data would escape our logger and its redaction), even with OPENAI_LOG=debug
 * in the environment, which the official SDK would obey. Watching the console is not mocking
 * Merino: the spies pass every call through.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const CONSOLE_METHODS = ['error', 'warn', 'info', 'log', 'debug'] as const;

describe.each(TEST_DIALECTS)('malformed provider answers on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let model: string;
  const previousLogSetting = process.env.OPENAI_LOG;

  beforeAll(async () => {
    // The SDK reads this when a client does not set its own level; ours must win.
    process.env.OPENAI_LOG = 'debug';
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, { environment: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseUrl } });
    token = await loginAsAdmin(server);
    model = `lamb_assistant.${(await request(server, 'POST', '/api/assistants', { token, body: { name: 'tutor', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } } })).body.id}`;
  });

  afterAll(async () => {
    if (previousLogSetting === undefined) delete process.env.OPENAI_LOG;
    else process.env.OPENAI_LOG = previousLogSetting;
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('ends a stream cut by a malformed chunk with an error chunk, refuses a half JSON answer with a 502, and leaves the console silent', async () => {
    const spies = CONSOLE_METHODS.map((method) => vi.spyOn(console, method));
    try {
      fake.enqueue(
        { chunks: ['one ', 'two'], malformedAfterChunks: 2 },
        { text: 'fine', usage: { prompt_tokens: 1, completion_tokens: 1 } },
      );
      const cut = await request(server, 'POST', '/v1/chat/completions', {
        token,
        body: { model, stream: true, messages: [{ role: 'user', content: 'x' }] },
      });
      expect(cut.status, cut.text).toBe(200);
      expect(cut.text).not.toContain('[DONE]');
      expect(cut.text).not.toContain('not json');
      expect(cut.text).toContain('"code":"upstream_error"');
      const whole = await request(server, 'POST', '/v1/chat/completions', {
        token,
        body: { model, messages: [{ role: 'user', content: 'x' }] },
      });
      expect(whole.status).toBe(200);
      expect(whole.body.choices[0].message.content).toBe('fine');
      fake.enqueue({ text: 'cut in half', malformedAfterChunks: 0 });
      const halfWhole = await request(server, 'POST', '/v1/chat/completions', {
        token,
        body: { model, messages: [{ role: 'user', content: 'x' }] },
      });
      expect(halfWhole.status).toBe(502);
      expect(halfWhole.body.error.code).toBe('upstream_error');
      expect(halfWhole.body.error.message).toBe('The model provider sent a malformed answer.');
      expect(halfWhole.text).not.toContain('cut in half');
      for (const spy of spies) expect(spy.mock.calls).toEqual([]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
