/**
 * Proves the studio's Model list (GET /api/models) over real HTTP on both stores, against fake
 * providers speaking OpenAI's `/v1/models` and Ollama's `/api/tags`: it shows the providers' own
 * model ids (with the organization's key, which never comes back), marks the organization's allowed
 * models and default, keeps a provider's answer for the cache lifetime and shares one request among
 * 50 callers (counted at the fake), shows a slow, refusing, failing or garbled provider as
 * unavailable with its reason without hiding the others, lists test connectors to system admins
 * only, and answers each role and hostile input as it must.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const ORGANIZATION_KEY = 'sk-organization-model-list-key-333333';
const GATEWAY_MODELS = ['qwen2.5-7b-instruct', 'university/llama-3.1-70b-instruct'];
const OLLAMA_MODELS = ['gemma3:4b', 'mistral:latest'];

interface ListedProvider {
  connector: string;
  testing: boolean;
  available: boolean;
  reason: string | null;
  message: string | null;
  models: Array<{ id: string; choice: string; allowed: boolean; default: boolean }>;
}

function provider(body: { providers: ListedProvider[] }, connector: string): ListedProvider | undefined {
  return body.providers.find((listed) => listed.connector === connector);
}

function listRequests(fake: FakeOpenAiServer): number {
  return fake.requests.filter((recorded) => recorded.method === 'GET' && recorded.path === '/v1/models').length;
}

describe.each(TEST_DIALECTS)('the studio Model list on %s', (dialect) => {
  let gateway: FakeOpenAiServer;
  let scripted: FakeOpenAiServer;
  let ollama: FakeOllamaServer;
  let server: TestServer;
  let systemAdmin: string;
  let organizationAdmin: string;
  let creator: string;
  let learner: string;
  let otherCreator: string;
  let organizationId: number;

  const models = (token: string | undefined, query = '') =>
    request(server, 'GET', `/api/models${query}`, { ...(token !== undefined && { token }) });
  const setProviders = (body: Record<string, unknown>) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: systemAdmin, body });
  /** Points the organization's OpenAI-compatible provider at `fake` with `apiKey`: a new URL or key is asked anew. */
  const useOpenAi = async (fake: FakeOpenAiServer, apiKey: string) =>
    expect((await setProviders({ providers: { openai: { base_url: fake.baseUrl, api_key: apiKey } } })).status).toBe(200);

  beforeAll(async () => {
    gateway = await startFakeOpenAiServer({ apiKey: ORGANIZATION_KEY });
    gateway.setModelList({ models: GATEWAY_MODELS });
    scripted = await startFakeOpenAiServer();
    ollama = await startFakeOllamaServer();
    ollama.setModelList({ models: OLLAMA_MODELS });
    server = await startTestServer(dialect, {
      // Images through Gemini, which has no key here: banana_img then asks no OpenAI fake for its
      // image models, so each fake's requests count the openai connector's list alone.
      environment: { MODEL_LIST_CACHE_MS: '600000', MODEL_LIST_TIMEOUT_MS: '500', IMAGE_PROVIDER: 'gemini' },
    });
    systemAdmin = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id;
    [organizationAdmin, creator, learner, otherCreator] = (await peopleInTwoOrganizations(server, systemAdmin, [
      { email: 'admin@a.test', role: 'admin', organization: 'A' },
      { email: 'creator@a.test', role: 'creator', organization: 'A' },
      { email: 'learner@a.test', role: 'learner', organization: 'A' },
      { email: 'creator@b.test', role: 'creator', organization: 'B' },
    ])) as [string, string, string, string];
    expect((await setProviders({ providers: { ollama: { base_url: ollama.baseUrl } } })).status).toBe(200);
    await useOpenAi(gateway, ORGANIZATION_KEY);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(gateway)?.close();
    await possiblyUnset(scripted)?.close();
    await possiblyUnset(ollama)?.close();
  });

  it("shows a creator the providers' own model ids, asked with the organization's key, and no test connector", async () => {
    const response = await models(creator);
    expect(response.status).toBe(200);
    expect(response.body.providers.map((listed: ListedProvider) => listed.connector)).toEqual([
      'anthropic',
      'banana_img',
      'gemini',
      'ollama',
      'openai',
    ]);
    expect(provider(response.body, 'openai')).toMatchObject({ available: true, reason: null, message: null, testing: false });
    expect(provider(response.body, 'openai')?.models.map((model) => model.id)).toEqual(GATEWAY_MODELS);
    expect(provider(response.body, 'openai')?.models[0]).toEqual({
      id: 'qwen2.5-7b-instruct',
      choice: 'openai/qwen2.5-7b-instruct',
      allowed: true,
      default: false,
    });
    expect(provider(response.body, 'ollama')?.models.map((model) => model.id)).toEqual(OLLAMA_MODELS);
    expect(gateway.requests.find((recorded) => recorded.path === '/v1/models')?.headers.authorization).toBe(`Bearer ${ORGANIZATION_KEY}`);
    expect(response.text).not.toContain(ORGANIZATION_KEY);
    expect(server.logLines.join('\n')).not.toContain(ORGANIZATION_KEY);
  });

  it("marks the organization's allowed models and its default", async () => {
    const saved = await setProviders({
      models: { allowed: ['openai/university/llama-3.1-70b-instruct'], default: 'openai/university/llama-3.1-70b-instruct' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.models).toEqual({
      allowed: ['openai/university/llama-3.1-70b-instruct'],
      default: 'openai/university/llama-3.1-70b-instruct',
    });
    const response = await models(creator);
    expect(response.body.default_model).toBe('openai/university/llama-3.1-70b-instruct');
    expect(provider(response.body, 'openai')?.models.map(({ id, allowed, default: isDefault }) => ({ id, allowed, isDefault }))).toEqual([
      { id: 'qwen2.5-7b-instruct', allowed: false, isDefault: false },
      { id: 'university/llama-3.1-70b-instruct', allowed: true, isDefault: true },
    ]);
    expect(provider(response.body, 'ollama')?.models.every((model) => !model.allowed)).toBe(true);
    // The allowed list chooses among providers' models; a system admin's test connector stays usable.
    expect(provider((await models(systemAdmin)).body, 'bypass')?.models.every((model) => model.allowed)).toBe(true);
    expect((await setProviders({ models: { allowed: null, default: null } })).body.models).toEqual({ allowed: null, default: null });
    expect((await models(creator)).body.default_model).toBeNull();
  });

  it('asks a provider once within the cache lifetime', async () => {
    const caching = await startFakeOpenAiServer();
    try {
      await useOpenAi(caching, 'sk-caching-1');
      expect(provider((await models(creator)).body, 'openai')?.models.map((model) => model.id)).toEqual([
        'gpt-4o',
        'gpt-4o-mini',
        'text-embedding-3-small',
      ]);
      expect(provider((await models(organizationAdmin)).body, 'openai')?.available).toBe(true);
      expect(listRequests(caching)).toBe(1);
    } finally {
      await caching.close();
    }
  });

  it('answers 50 callers at once from one request to the provider', async () => {
    const shared = await startFakeOpenAiServer();
    try {
      // A wait at the fake keeps the first request open while the others arrive.
      shared.setModelList({ models: ['shared-model'], delayMs: 200 });
      await useOpenAi(shared, 'sk-shared-1');
      const responses = await Promise.all(Array.from({ length: 50 }, () => models(creator)));
      expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 200));
      for (const response of responses)
        expect(provider(response.body, 'openai')?.models.map((model) => model.id)).toEqual(['shared-model']);
      expect(listRequests(shared)).toBe(1);
    } finally {
      await shared.close();
    }
  });

  it.each([
    { name: 'a slow provider', script: { delayMs: 30_000 }, reason: 'timeout', message: 'The provider did not answer within 0.5 seconds.' },
    { name: 'a refused key', script: { status: 401 }, reason: 'key_rejected', message: 'The provider refused the API key (HTTP 401).' },
    {
      name: 'a failing provider',
      script: { status: 500 },
      reason: 'provider_error',
      message: 'The provider answered with an error (HTTP 500).',
    },
    {
      name: 'a garbled answer',
      script: { malformed: true },
      reason: 'malformed_answer',
      message: 'The provider answered, but not with a list of models.',
    },
  ])('shows $name as unavailable with its reason, and the other providers still', async ({ script, reason, message }) => {
    scripted.setModelList(script);
    await useOpenAi(scripted, `sk-${reason}`);
    const response = await models(creator);
    expect(response.status).toBe(200);
    expect(provider(response.body, 'openai')).toMatchObject({ available: false, reason, message, models: [] });
    expect(provider(response.body, 'ollama')?.models.map((model) => model.id)).toEqual(OLLAMA_MODELS);
    await useOpenAi(gateway, ORGANIZATION_KEY);
  });

  it('lists the test connectors to system admins only', async () => {
    const asSystemAdmin = await models(systemAdmin);
    expect(provider(asSystemAdmin.body, 'bypass')).toMatchObject({
      testing: true,
      available: true,
      models: [
        expect.objectContaining({ id: 'simple-bypass' }),
        expect.objectContaining({ id: 'debug-bypass' }),
        expect.objectContaining({ id: 'full-conversation-bypass' }),
      ],
    });
    for (const token of [organizationAdmin, creator]) expect(provider((await models(token)).body, 'bypass')).toBeUndefined();
    const lambList = await request(server, 'GET', '/lamb/v1/completions/list', { token: creator });
    expect(Object.keys(lambList.body.connectors)).toEqual(['anthropic', 'banana_img', 'gemini', 'ollama', 'openai']);
    expect(lambList.body.connectors.openai.models).toEqual(GATEWAY_MODELS);
  });

  it('answers each role as it must', async () => {
    expect((await models(organizationAdmin)).status).toBe(200);
    const other = await models(otherCreator);
    expect(other.status).toBe(200);
    // Organization B set no provider of its own: nothing of organization A's shows, and no key means no request.
    expect(provider(other.body, 'openai')).toMatchObject({
      available: false,
      reason: 'no_key',
      message: 'No API key is set for this provider.',
    });
    expect(JSON.stringify(other.body)).not.toContain('university/llama');
    const refused = await models(learner);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect((await models(undefined)).status).toBe(401);
  });

  it('refuses hostile input with a 4xx naming the problem', async () => {
    for (const query of ['?colour=red', '?connector=openai', `?${'a'.repeat(2_000)}=1`]) {
      const response = await models(creator, query);
      expect(response.status, query.slice(0, 40)).toBe(400);
      expect(response.body.error.code).toBe('invalid_query');
    }
    for (const body of [
      { models: { default: 'no-slash' } },
      { models: { allowed: 'openai/gpt-4o' } },
      { models: { allowed: ['openai/' + 'x'.repeat(400)] } },
      { models: { colour: 'red' } },
    ]) {
      const response = await setProviders(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toMatch(/models/);
    }
  });
});

describe.each(TEST_DIALECTS)('MODEL_LIST_TEST_CONNECTORS on %s', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { MODEL_LIST_TEST_CONNECTORS: 'true' } });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('lists the test connectors to every creator when on', async () => {
    const [creator] = (await peopleInTwoOrganizations(server, await loginAsAdmin(server), [
      { email: 'creator@a.test', role: 'creator', organization: 'A' },
    ])) as [string];
    const response = await request(server, 'GET', '/api/models', { token: creator });
    expect(response.body.providers.find((listed: ListedProvider) => listed.connector === 'bypass')).toMatchObject({
      testing: true,
      available: true,
    });
  });
});
