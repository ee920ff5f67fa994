/**
 * Proves, over real HTTP on both stores, that the server's OPENAI_API_KEY travels only to the
 * server's own OPENAI_BASE_URL (defect 8 of issue 11). An organization admin who sets only
 * `providers.openai.base_url` to a server they control receives chat, query-rewriting and
 * embedding requests (both for queries and for ingestion) without the server's key; a provider
 * there that needs a key gets the learner a clear error naming the missing key; an organization's
 * own key goes to its own URL, or to the server's URL when it sets no URL. The fake providers
 * record the Authorization header of every request they receive.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const SERVER_KEY = 'sk-server-own-key-must-stay-home-0001';
const ORGANIZATION_KEY = 'sk-organization-own-key-0002';
const KEYED_PROVIDER_KEY = 'sk-keyed-provider-0003';

function headersOf(requests: readonly RecordedRequest[]): string {
  return JSON.stringify(requests.map((recorded) => recorded.headers));
}

function paths(requests: readonly RecordedRequest[]): string[] {
  return requests.map((recorded) => recorded.path.replace(/^\/v1/, ''));
}

describe.each(TEST_DIALECTS)("the server's provider key on %s", (dialect) => {
  let serverProvider: FakeOpenAiServer;
  let organizationProvider: FakeOpenAiServer;
  let keyedProvider: FakeOpenAiServer;
  let server: TestServer;
  let adminToken: string;
  let organizationId: number;
  let knowledgeBaseId: number;
  let assistantModel: string;

  const setProviders = (openai: Record<string, string | null>) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: adminToken, body: { providers: { openai } } });
  const chat = () =>
    request(server, 'POST', '/v1/chat/completions', {
      token: adminToken,
      body: {
        model: assistantModel,
        messages: [
          { role: 'user', content: 'Tell me about glaciers.' },
          { role: 'assistant', content: 'They are ice.' },
          { role: 'user', content: 'And valleys?' },
        ],
      },
    });

  async function ingest(text: string): Promise<string> {
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/documents`, {
      token: adminToken,
      body: { documents: [{ text }] },
    });
    expect(queued.status, queued.text).toBe(202);
    return (await waitForJob(server, adminToken, knowledgeBaseId, queued.body.documents[0].job_id)).status;
  }

  beforeAll(async () => {
    // Neither fake insists on a key, so each records whatever Authorization header it was sent.
    serverProvider = await startFakeOpenAiServer();
    organizationProvider = await startFakeOpenAiServer();
    keyedProvider = await startFakeOpenAiServer({ apiKey: KEYED_PROVIDER_KEY });
    server = await startTestServer(dialect, {
      environment: { OPENAI_API_KEY: SERVER_KEY, OPENAI_BASE_URL: serverProvider.baseUrl, INGESTION_POLL_MS: '20' },
    });
    adminToken = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: adminToken,
      body: { name: 'Glaciers', embeddings: { connector: 'openai', model: 'text-embedding-3-small' } },
    });
    expect(created.status, created.text).toBe(201);
    knowledgeBaseId = created.body.id;
    expect(await ingest('Glaciers carve valleys as the ice flows downhill.')).toBe('completed');
    expect(
      (
        await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
          token: adminToken,
          body: { small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } },
        })
      ).status,
    ).toBe(200);
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: 'Glacier tutor',
        prompt_template: 'Context:{context}Question:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tools: [{ type: 'simple_rag', config: { collections: [String(knowledgeBaseId)], top_k: 1, query_mode: 'context_aware' } }],
        },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    assistantModel = `lamb_assistant.${assistant.body.id}`;
  });

  beforeEach(() => {
    serverProvider.reset();
    organizationProvider.reset();
    keyedProvider.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await Promise.all([
      possiblyUnset(serverProvider)?.close(),
      possiblyUnset(organizationProvider)?.close(),
      possiblyUnset(keyedProvider)?.close(),
    ]);
  });

  it("sends the server's key to the server's URL while the organization sets no URL", async () => {
    expect((await chat()).status).toBe(200);
    expect(paths(serverProvider.requests)).toEqual(expect.arrayContaining(['/chat/completions', '/embeddings']));
    expect(serverProvider.requests.every((recorded) => recorded.headers.authorization === `Bearer ${SERVER_KEY}`)).toBe(true);
  });

  it("never sends the server's key to a base URL the organization set without a key: chat, query rewriting and embeddings", async () => {
    expect((await setProviders({ base_url: organizationProvider.baseUrl })).status).toBe(200);
    try {
      const answer = await chat();
      expect(answer.status, answer.text).toBe(200);
      expect(await ingest('Valleys shaped by glaciers are U-shaped.')).toBe('completed');
      const received = paths(organizationProvider.requests);
      // The rewrite and the answer, the query's embedding and the ingested chunk's.
      expect(received.filter((path) => path === '/chat/completions')).toHaveLength(2);
      expect(received.filter((path) => path === '/embeddings').length).toBeGreaterThanOrEqual(2);
      expect(headersOf(organizationProvider.requests)).not.toContain(SERVER_KEY);
      expect(serverProvider.requests).toEqual([]);
    } finally {
      await setProviders({ base_url: null });
    }
  });

  it('tells the learner clearly when a provider at the organization URL needs a key the organization did not set', async () => {
    expect((await setProviders({ base_url: keyedProvider.baseUrl })).status).toBe(200);
    try {
      const answer = await chat();
      expect(answer.status).toBe(502);
      expect(answer.body.error.message).toMatch(/requires an API key, and none is set/);
      expect(answer.text).not.toContain(SERVER_KEY);
      expect(headersOf(keyedProvider.requests)).not.toContain(SERVER_KEY);
      expect(serverProvider.requests).toEqual([]);
    } finally {
      await setProviders({ base_url: null });
    }
  });

  it("sends the organization's own key to the organization's URL", async () => {
    expect((await setProviders({ base_url: organizationProvider.baseUrl, api_key: ORGANIZATION_KEY })).status).toBe(200);
    try {
      expect((await chat()).status).toBe(200);
      expect(organizationProvider.requests.length).toBeGreaterThan(0);
      expect(organizationProvider.requests.every((recorded) => recorded.headers.authorization === `Bearer ${ORGANIZATION_KEY}`)).toBe(true);
      expect(serverProvider.requests).toEqual([]);
    } finally {
      await setProviders({ base_url: null, api_key: null });
    }
  });

  it("sends an organization's key without a URL of its own to the server's URL, in place of the server's key", async () => {
    expect((await setProviders({ api_key: ORGANIZATION_KEY })).status).toBe(200);
    try {
      expect((await chat()).status).toBe(200);
      expect(serverProvider.requests.length).toBeGreaterThan(0);
      expect(serverProvider.requests.every((recorded) => recorded.headers.authorization === `Bearer ${ORGANIZATION_KEY}`)).toBe(true);
      expect(organizationProvider.requests).toEqual([]);
    } finally {
      await setProviders({ api_key: null });
    }
  });
});
