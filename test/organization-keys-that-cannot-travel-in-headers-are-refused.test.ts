/**
 * Proves, on both stores, that an organization's provider key, knowledge-server key and Moodle
 * token are accepted only as visible ASCII, the only text an HTTP header can carry (found by the
 * API fuzz suite): a key with accents, emoji, spaces or line breaks is refused with 400 naming
 * the field, is not stored, and chats keep working; ordinary keys are still accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const UNSENDABLE_KEYS = ['Zürich-key', 'sk-🦙', 'sk with spaces', 'sk-line\nbreak', 'sk-tab\there'];

describe.each(TEST_DIALECTS)('organization keys that cannot travel in a header on %s', (dialect) => {
  let server: TestServer;
  let openAi: FakeOpenAiServer;
  let admin: CreatedUser;
  let organizationId: number;

  const patchProviders = (body: unknown) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: admin.token, body });

  beforeAll(async () => {
    openAi = await startFakeOpenAiServer();
    server = await startTestServer(dialect, { environment: { OPENAI_BASE_URL: openAi.baseUrl, OPENAI_API_KEY: 'sk-server' } });
    organizationId = await insertOrganization(server.store.db, 'keys-school', 'Keys school');
    admin = await createUser(server, await loginAsAdmin(server), {
      email: `keys-admin-${dialect}@merino.test`,
      role: 'admin',
      organization_id: organizationId,
    });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(openAi)?.close();
  });

  it.each([
    ['providers.openai.api_key', (key: string) => ({ providers: { openai: { api_key: key } } })],
    ['kb_server.api_key', (key: string) => ({ kb_server: { api_key: key } })],
    ['moodle.token', (key: string) => ({ moodle: { token: key } })],
  ])('%s is refused with 400 naming it, and nothing is stored', async (field, bodyFor) => {
    for (const key of UNSENDABLE_KEYS) {
      const response = await patchProviders(bodyFor(key));
      expect(response.status, `${JSON.stringify(key)}: ${response.text}`).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_body', param: field });
      expect(response.text).not.toContain(key);
    }
    const settings = await request(server, 'GET', `/api/organizations/${organizationId}/providers`, { token: admin.token });
    expect(settings.body).toMatchObject({
      providers: { openai: { api_key_set: false } },
      kb_server: { api_key_set: false },
      moodle: { token_set: false },
    });
  });

  it('accepts ordinary keys, and chats in the organization keep reaching the provider', async () => {
    const saved = await patchProviders({ providers: { openai: { api_key: 'sk-proj_AbC.123~x-Y' } }, moodle: { token: '0123abcdef' } });
    expect(saved.status, saved.text).toBe(200);
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: admin.token,
      body: { name: 'Keyed tutor', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const chat = await request(server, 'POST', '/v1/chat/completions', {
      token: admin.token,
      body: { model: `lamb_assistant.${assistant.body.id}`, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(chat.status, chat.text).toBe(200);
    expect(openAi.requests.at(-1)?.headers.authorization).toBe('Bearer sk-proj_AbC.123~x-Y');
  });
});
