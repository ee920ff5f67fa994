// Proves UPSTREAM_RESPONSE_MAX_BYTES on both stores: a provider answer larger than the bound,
// whole or streamed, from the server's URL or an organization's (reached through the outbound
// guard), over the lean POST of the openai connector or the fetch of the ollama one, fails with a clear 502 `upstream_error` (an error chunk once a stream has begun), none of
// its text reaches the client, and the server goes on answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const BYTES_MAXIMUM = 4_096;
const OVERSIZED_TEXT = 'oversized-canary '.repeat(1_000);
const OVERSIZED_MESSAGE = 'The model provider sent a larger answer than UPSTREAM_RESPONSE_MAX_BYTES allows.';

describe.each(TEST_DIALECTS)('oversized provider answers on %s', (dialect) => {
  let serverProvider: FakeOpenAiServer;
  let organizationProvider: FakeOpenAiServer;
  let ollama: FakeOllamaServer;
  let server: TestServer;
  let token: string;
  let model: string;
  let ollamaModel: string;

  beforeAll(async () => {
    serverProvider = await startFakeOpenAiServer();
    organizationProvider = await startFakeOpenAiServer();
    ollama = await startFakeOllamaServer();
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: serverProvider.baseUrl,
        OLLAMA_BASE_URL: ollama.baseUrl,
        UPSTREAM_RESPONSE_MAX_BYTES: String(BYTES_MAXIMUM),
      },
    });
    token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'Bound probe', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    model = `lamb_assistant.${created.body.id}`;
    const local = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'Local bound probe', metadata: { connector: 'ollama', llm: 'llama3.1' } },
    });
    ollamaModel = `lamb_assistant.${local.body.id}`;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(serverProvider)?.close();
    await possiblyUnset(organizationProvider)?.close();
    await possiblyUnset(ollama)?.close();
  });

  const ask = (stream: boolean, assistant = model) =>
    request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model: assistant, stream, messages: [{ role: 'user', content: 'long, please' }] },
    });

  it('refuses a whole answer past the bound with a 502 and goes on answering', async () => {
    serverProvider.enqueue({ text: OVERSIZED_TEXT }, { text: 'short' });
    const oversized = await ask(false);
    expect(oversized.status).toBe(502);
    expect(oversized.body.error).toMatchObject({ code: 'upstream_error', message: OVERSIZED_MESSAGE });
    expect(oversized.text).not.toContain('oversized-canary');
    const next = await ask(false);
    expect(next.status).toBe(200);
    expect(next.body.choices[0].message.content).toBe('short');
  });

  it('ends a stream that passes the bound with an error chunk and no [DONE]', async () => {
    serverProvider.enqueue({ chunks: Array.from({ length: 200 }, () => 'oversized-canary ') });
    const cut = await ask(true);
    expect(cut.status).toBe(200);
    expect(cut.text).toContain(OVERSIZED_MESSAGE);
    expect(cut.text).not.toContain('[DONE]');
  });

  it("bounds the ollama connector's fetch at the server's own URL the same way", async () => {
    ollama.enqueue({ text: OVERSIZED_TEXT }, { text: 'short and local' });
    const oversized = await ask(false, ollamaModel);
    expect(oversized.status).toBe(502);
    expect(oversized.body.error).toMatchObject({ code: 'upstream_error', message: OVERSIZED_MESSAGE });
    expect(oversized.text).not.toContain('oversized-canary');
    const next = await ask(false, ollamaModel);
    expect(next.status).toBe(200);
    expect(next.body.choices[0].message.content).toBe('short and local');
  });

  it("bounds an organization's provider, reached through the outbound guard, the same way", async () => {
    const organizationId = (await request(server, 'GET', '/api/me', { token })).body.organization_id;
    const saved = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token,
      body: { providers: { openai: { api_key: 'sk-organization', base_url: organizationProvider.baseUrl } } },
    });
    expect(saved.status).toBe(200);
    organizationProvider.enqueue({ text: OVERSIZED_TEXT }, { text: 'from the organization' });
    const oversized = await ask(false);
    expect(oversized.status).toBe(502);
    expect(oversized.body.error.message).toBe(OVERSIZED_MESSAGE);
    expect(organizationProvider.requests).toHaveLength(1);
    const next = await ask(false);
    expect(next.body.choices[0].message.content).toBe('from the organization');
  });
});
