/**
 * Proves an organization's own provider settings: its assistants call its base URL with its key
 * (falling back to the server's when unset), the key is encrypted at rest, never returned by the
 * API nor written to a log, and only the organization's admins may manage it.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const SERVER_KEY = 'sk-server-wide-key-111111';
const ORGANIZATION_KEY = 'sk-organization-key-222222';

describe.each(TEST_DIALECTS)('organization provider settings on %s', (dialect) => {
  let serverWideProvider: FakeOpenAiServer;
  let organizationProvider: FakeOpenAiServer;
  let server: TestServer;
  let adminToken: string;
  let organizationId: number;
  let client: OpenAI;
  let model: string;

  beforeAll(async () => {
    serverWideProvider = await startFakeOpenAiServer({ apiKey: SERVER_KEY });
    organizationProvider = await startFakeOpenAiServer({ apiKey: ORGANIZATION_KEY });
    server = await startTestServer(dialect, { environment: { OPENAI_API_KEY: SERVER_KEY, OPENAI_BASE_URL: serverWideProvider.baseUrl } });
    adminToken = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: { name: 'Provider probe', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    model = `lamb_assistant.${created.body.id}`;
    client = new OpenAI({ apiKey: adminToken, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(serverWideProvider)?.close();
    await possiblyUnset(organizationProvider)?.close();
  });

  const ask = () => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'which provider?' }] });

  it('uses the server-wide provider while the organization has none', async () => {
    await ask();
    expect(serverWideProvider.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
    const settings = await request(server, 'GET', `/api/organizations/${organizationId}/providers`, { token: adminToken });
    expect(settings.body).toEqual({
      providers: {
        openai: { base_url: null, api_key_set: false },
        anthropic: { base_url: null, api_key_set: false },
        gemini: { base_url: null, api_key_set: false },
        ollama: { base_url: null },
      },
      kb_server: { url: null, api_key_set: false },
      small_fast_model: null,
      moodle: { api_url: null, token_set: false },
      web_search: { provider: null, url: null, api_key_set: false },
      models: { allowed: null, default: null },
    });
  });

  it("calls the organization's base URL with its key once set, and never shows the key", async () => {
    const updated = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { providers: { openai: { api_key: ORGANIZATION_KEY, base_url: organizationProvider.baseUrl } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.providers.openai).toEqual({ base_url: organizationProvider.baseUrl, api_key_set: true });
    expect(updated.text).not.toContain(ORGANIZATION_KEY);
    await ask();
    expect(organizationProvider.requests.at(-1)?.headers.authorization).toBe(`Bearer ${ORGANIZATION_KEY}`);
    expect((await request(server, 'GET', `/api/organizations/${organizationId}/providers`, { token: adminToken })).text).not.toContain(
      ORGANIZATION_KEY,
    );
  });

  it('stores the key encrypted, and never logs it', async () => {
    const row = await server.store.db
      .selectFrom('organizations')
      .select('config')
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
    expect(row.config).not.toContain(ORGANIZATION_KEY);
    expect(JSON.parse(row.config).providers.openai.api_key).toMatch(/^v1:/);
    const audit = await server.store.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'organization.providers_update')
      .execute();
    expect(audit.map((entry) => JSON.parse(entry.details).fields)).toContainEqual([
      'providers.openai.api_key',
      'providers.openai.base_url',
    ]);
    expect(server.logLines.filter((line) => line.includes(ORGANIZATION_KEY) || line.includes(SERVER_KEY))).toEqual([]);
  });

  it('falls back to the server-wide key when the organization clears its own', async () => {
    await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { providers: { openai: { api_key: null, base_url: null } } },
    });
    await ask();
    expect(serverWideProvider.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
  });

  it('lets only the organization admins manage it: 403 for its members, 404 for outsiders', async () => {
    const creator = await createUser(server, adminToken, { email: `member-${dialect}@merino.test`, role: 'creator' });
    expect((await request(server, 'GET', `/api/organizations/${organizationId}/providers`, { token: creator.token })).status).toBe(403);
    const otherOrganization = await insertOrganization(server.store.db, `other-${dialect}`, 'Other');
    const outsider = await createUser(server, adminToken, {
      email: `outsider-${dialect}@merino.test`,
      role: 'admin',
      organization_id: otherOrganization,
    });
    expect(
      (await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: outsider.token, body: { providers: {} } }))
        .status,
    ).toBe(404);
    expect((await request(server, 'GET', `/api/organizations/${otherOrganization}/providers`, { token: outsider.token })).status).toBe(200);
  });

  it('refuses a base URL that is not http(s), naming it', async () => {
    const response = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { providers: { ollama: { base_url: 'file:///etc/passwd' } } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('providers.ollama.base_url');
  });
});
