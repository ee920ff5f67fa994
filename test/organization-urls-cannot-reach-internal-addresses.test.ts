/**
 * Proves, over real HTTP on both stores, that an organization admin cannot point Merino at an
 * internal address (defect 9 of issue 11):
 * - saving any of 18 internal forms (loopback in every spelling, localhost, cloud metadata,
 *   0.0.0.0, private, CGNAT, unique-local, link-local, multicast, Merino's own address) as a
 *   provider, knowledge-base server or Moodle URL is a 400 `url_refused` naming the field;
 * - a URL that reaches an internal address anyway (saved before the check existed, or a name
 *   resolving there) is refused when connecting: chat, Ollama, embeddings, the LAMB server and
 *   Moodle each fail with a clear error naming the field, and the internal service sees nothing;
 * - the server's own environment URLs still reach loopback (the model fake below lives there);
 * - OUTBOUND_ALLOWED_HOSTS lets a named host through.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLambKnowledgeServer, type FakeLambKnowledgeServer } from './fakes/fake-lamb-knowledge-server.js';
import { REST_PATH, startFakeMoodleServer, type FakeMoodleServer } from './fakes/fake-moodle-server.js';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const MOODLE_TOKEN = 'moodle-token-for-the-guard-test';
const KB_KEY = 'kb-key-for-the-guard-test';
const FIELDS = ['providers.openai.base_url', 'providers.ollama.base_url', 'kb_server.url', 'moodle.api_url'] as const;
type Field = (typeof FIELDS)[number];

/** The 18 destinations an organization admin tried, as URL origins; `port` is a live internal service's. */
function internalOrigins(port: number, merinoBaseUrl: string): string[] {
  return [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    'http://169.254.169.254',
    `http://[::1]:${port}`,
    `http://0.0.0.0:${port}`,
    `http://[::ffff:127.0.0.1]:${port}`,
    `http://2130706433:${port}`,
    `http://0x7f.1:${port}`,
    `http://017700000001:${port}`,
    `http://127.1:${port}`,
    'http://10.0.0.1',
    'http://192.168.1.1',
    'http://172.16.0.1',
    'http://100.64.0.1',
    'http://[fd00::1]',
    'http://[fe80::1]',
    'http://224.0.0.1',
    merinoBaseUrl,
  ];
}

function patchFor(field: Field, url: string): Record<string, unknown> {
  if (field === 'providers.openai.base_url') return { providers: { openai: { base_url: url } } };
  if (field === 'providers.ollama.base_url') return { providers: { ollama: { base_url: url } } };
  if (field === 'kb_server.url') return { kb_server: { url } };
  return { moodle: { api_url: url } };
}

describe.each(TEST_DIALECTS)('organization URLs and internal addresses on %s', (dialect) => {
  let model: FakeOpenAiServer;
  let internalOpenAi: FakeOpenAiServer;
  let internalOllama: FakeOllamaServer;
  let internalKnowledgeServer: FakeLambKnowledgeServer;
  let internalMoodle: FakeMoodleServer;
  let server: TestServer;
  let adminToken: string;
  let organizationId: number;

  const providersPath = () => `/api/organizations/${organizationId}/providers`;
  const patch = (body: Record<string, unknown>) => request(server, 'PATCH', providersPath(), { token: adminToken, body });
  const chat = (assistantModel: string, stream = false) =>
    request(server, 'POST', '/v1/chat/completions', {
      token: adminToken,
      body: { model: assistantModel, stream, messages: [{ role: 'user', content: 'hello' }] },
    });

  /** Writes URLs into the stored settings directly, as a URL saved before this check existed would be. */
  async function storeUrls(change: (config: any) => void): Promise<void> {
    const row = await server.store.db
      .selectFrom('organizations')
      .select('config')
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
    const config = JSON.parse(row.config);
    change(config);
    await server.store.db
      .updateTable('organizations')
      .set({ config: JSON.stringify(config) })
      .where('id', '=', organizationId)
      .execute();
  }

  async function createAssistant(body: Record<string, unknown>): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: { name: `Guard probe ${Math.random()}`, ...body },
    });
    expect(created.status, created.text).toBe(201);
    return `lamb_assistant.${created.body.id}`;
  }

  const nothingReachedInside = () => {
    expect(internalOpenAi.requests).toEqual([]);
    expect(internalOllama.requests).toEqual([]);
    expect(internalKnowledgeServer.requests).toEqual([]);
    expect(internalMoodle.requests).toEqual([]);
  };

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    internalOpenAi = await startFakeOpenAiServer();
    internalOllama = await startFakeOllamaServer();
    internalKnowledgeServer = await startFakeLambKnowledgeServer({
      apiKey: KB_KEY,
      collections: { physics: [{ text: 'Internal passage.', metadata: {} }] },
    });
    internalMoodle = await startFakeMoodleServer({
      token: MOODLE_TOKEN,
      users: [{ id: 41, username: 'ada', firstname: 'Ada', lastname: 'Lovelace', email: 'admin@merino.test' }],
    });
    // No exceptions: the fakes on loopback stand for services inside Merino's network.
    server = await startTestServer(dialect, {
      environment: {
        OUTBOUND_ALLOWED_HOSTS: '',
        OPENAI_API_KEY: 'sk-server',
        OPENAI_BASE_URL: model.baseUrl,
        INGESTION_POLL_MS: '20',
        // storeUrls writes the settings straight into the store, as another process would; uncached, runs see them at once.
        HOT_READ_CACHE_MS: '0',
      },
    });
    adminToken = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
  });

  beforeEach(() => {
    model.reset();
    internalOpenAi.reset();
    internalOllama.reset();
    internalKnowledgeServer.reset();
    internalMoodle.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await Promise.all([
      possiblyUnset(model)?.close(),
      possiblyUnset(internalOpenAi)?.close(),
      possiblyUnset(internalOllama)?.close(),
      possiblyUnset(internalKnowledgeServer)?.close(),
      possiblyUnset(internalMoodle)?.close(),
    ]);
  });

  describe('when saved', () => {
    it.each(FIELDS)('refuses all 18 internal forms for %s with a 400 naming the field', async (field) => {
      const port = new URL(internalOpenAi.baseUrl).port;
      const accepted: string[] = [];
      for (const origin of internalOrigins(Number(port), server.baseUrl)) {
        const url = field === 'moodle.api_url' ? `${origin}${REST_PATH}` : field === 'providers.openai.base_url' ? `${origin}/v1` : origin;
        const response = await patch(patchFor(field, url));
        if (response.status !== 400) {
          accepted.push(`${url} → ${response.status}`);
          continue;
        }
        expect(response.body.error.code).toBe('url_refused');
        expect(response.body.error.param).toBe(field);
        expect(response.body.error.message).toContain(field);
      }
      expect(accepted).toEqual([]);
      const stored = await request(server, 'GET', providersPath(), { token: adminToken });
      expect(stored.body).toMatchObject({
        providers: { openai: { base_url: null }, ollama: { base_url: null } },
        kb_server: { url: null },
        moodle: { api_url: null },
      });
    });

    it('accepts public host names', async () => {
      const response = await patch({
        providers: { openai: { base_url: 'https://llm.example.org/v1' } },
        kb_server: { url: 'https://kb.example.org' },
      });
      expect(response.status, response.text).toBe(200);
      expect((await patch({ providers: { openai: { base_url: null } }, kb_server: null })).status).toBe(200);
    });
  });

  describe('when connecting', () => {
    afterAll(async () => {
      await storeUrls((config) => {
        delete config.providers;
        delete config.kb_server;
        delete config.moodle;
      });
    });

    it.each([
      ['a loopback name', (port: number) => `http://localhost:${port}/v1`, 'localhost'],
      ['a literal loopback address', (port: number) => `http://127.0.0.1:${port}/v1`, '127.0.0.1'],
    ])(
      'refuses chat through an OpenAI URL with %s: 502 upstream_refused naming the field, and nothing reaches it',
      async (_label, urlFor, host) => {
        await storeUrls((config) => {
          config.providers = { openai: { base_url: urlFor(Number(new URL(internalOpenAi.baseUrl).port)) } };
        });
        const assistantModel = await createAssistant({ metadata: { connector: 'openai', llm: 'gpt-4o-mini' } });
        const answer = await chat(assistantModel);
        expect(answer.status, answer.text).toBe(502);
        expect(answer.body.error.code).toBe('upstream_refused');
        expect(answer.body.error.message).toContain('providers.openai.base_url');
        expect(answer.body.error.message).toContain(host);
        const streamed = await chat(assistantModel, true);
        expect(streamed.status).toBe(502);
        expect(streamed.text).toContain('upstream_refused');
        nothingReachedInside();
      },
    );

    it('refuses an official client the same way, as a clear error and never a hang', async () => {
      const assistantModel = await createAssistant({ metadata: { connector: 'openai', llm: 'gpt-4o-mini' } });
      const client = new OpenAI({ apiKey: adminToken, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
      await expect(
        client.chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toMatchObject({ status: 502 });
      nothingReachedInside();
    });

    it('refuses chat through an Ollama URL that resolves to loopback', async () => {
      await storeUrls((config) => {
        config.providers = { ollama: { base_url: `http://localhost:${new URL(internalOllama.baseUrl).port}` } };
      });
      const assistantModel = await createAssistant({ metadata: { connector: 'ollama', llm: 'llama3.1' } });
      const answer = await chat(assistantModel);
      expect(answer.status, answer.text).toBe(502);
      expect(answer.body.error.code).toBe('upstream_refused');
      expect(answer.body.error.message).toContain('providers.ollama.base_url');
      nothingReachedInside();
    });

    it('refuses embeddings through an internal OpenAI URL (the server answered them before it was set)', async () => {
      await storeUrls((config) => {
        delete config.providers;
      });
      const created = await request(server, 'POST', '/api/knowledge-bases', {
        token: adminToken,
        body: { name: 'Guarded', embeddings: { connector: 'openai', model: 'text-embedding-3-small' } },
      });
      expect(created.status, created.text).toBe(201);
      const queued = await request(server, 'POST', `/api/knowledge-bases/${created.body.id}/documents`, {
        token: adminToken,
        body: { documents: [{ text: 'Glaciers carve valleys.' }] },
      });
      expect((await waitForJob(server, adminToken, created.body.id, queued.body.documents[0].job_id)).status).toBe('completed');
      await storeUrls((config) => {
        config.providers = { openai: { base_url: `http://localhost:${new URL(internalOpenAi.baseUrl).port}/v1` } };
      });
      const vector = await request(server, 'POST', `/api/knowledge-bases/${created.body.id}/query`, {
        token: adminToken,
        body: { query_text: 'glaciers', plugin_params: { mode: 'vector' } },
      });
      expect(vector.status, vector.text).toBe(502);
      expect(vector.body.error.code).toBe('upstream_refused');
      expect(vector.body.error.message).toContain('providers.openai.base_url');
      const hybrid = await request(server, 'POST', `/api/knowledge-bases/${created.body.id}/query`, {
        token: adminToken,
        body: { query_text: 'glaciers' },
      });
      expect(hybrid.status).toBe(200);
      expect(hybrid.body.mode).toBe('full_text');
      nothingReachedInside();
    });

    it("refuses the organization's LAMB knowledge-base server at an internal address, saying so in the status", async () => {
      expect((await patch({ kb_server: { url: 'https://kb.example.org', api_key: KB_KEY } })).status).toBe(200);
      await storeUrls((config) => {
        config.kb_server.url = `http://localhost:${new URL(internalKnowledgeServer.url).port}`;
      });
      const assistantModel = await createAssistant({
        prompt_template: 'Context:{context}Question:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'debug-bypass',
          tools: [{ type: 'simple_rag', config: { collections: ['physics'] } }],
        },
      });
      const streamed = await chat(assistantModel, true);
      expect(streamed.status).toBe(200);
      expect(streamed.text).toContain('kb_server.url');
      expect(streamed.text).not.toContain('Internal passage.');
      expect(streamed.text).not.toContain(KB_KEY);
      nothingReachedInside();
    });

    it("refuses the organization's Moodle at an internal address: the model is told why, and Moodle sees nothing", async () => {
      expect(
        (await patch({ kb_server: null, moodle: { api_url: `https://moodle.example.org${REST_PATH}`, token: MOODLE_TOKEN } })).status,
      ).toBe(200);
      await storeUrls((config) => {
        delete config.providers;
        config.moodle.api_url = `http://127.0.0.1:${new URL(internalMoodle.apiUrl).port}${REST_PATH}`;
      });
      const assistantModel = await createAssistant({
        system_prompt: 'Help.',
        metadata: { connector: 'openai', llm: 'gpt-4o-mini', tools: ['moodle'] },
      });
      model.enqueue({ toolCalls: [{ id: 'm1', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'Moodle is out of reach.' });
      const answer = await chat(assistantModel);
      expect(answer.status, answer.text).toBe(200);
      const toolResult = (model.requests[1]?.body.messages as Array<{ role: string; content: string }>).find(
        (message) => message.role === 'tool',
      )?.content;
      expect(toolResult).toContain('moodle.api_url');
      expect(toolResult).toContain('not a public address');
      expect(toolResult).not.toContain(MOODLE_TOKEN);
      nothingReachedInside();
    });
  });
});

describe.each(TEST_DIALECTS)('OUTBOUND_ALLOWED_HOSTS on %s', (dialect) => {
  let internalOpenAi: FakeOpenAiServer;
  let server: TestServer;

  beforeAll(async () => {
    internalOpenAi = await startFakeOpenAiServer();
    server = await startTestServer(dialect, { environment: { OUTBOUND_ALLOWED_HOSTS: 'localhost' } });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(internalOpenAi)?.close();
  });

  it('lets a named private host be saved and reached, and nothing else', async () => {
    const adminToken = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const port = new URL(internalOpenAi.baseUrl).port;
    const literal = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { providers: { openai: { base_url: `http://127.0.0.1:${port}/v1` } } },
    });
    expect(literal.status).toBe(400);
    const named = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { providers: { openai: { base_url: `http://localhost:${port}/v1` } } },
    });
    expect(named.status, named.text).toBe(200);
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: { name: 'Allowed', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: adminToken,
      body: { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(internalOpenAi.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'))).toHaveLength(1);
  });
});
