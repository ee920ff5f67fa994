/**
 * Proves an organization's knowledge-base server (LAMB's kb server: URL and API key) and small fast
 * model settings on `/api/organizations/{id}/providers`: each can be set, kept (absent) and cleared
 * (null); the key is encrypted at rest, never returned, logged or audited; the server side reads
 * them decrypted; only the organization's admins manage them; bad values are 400s naming the field.
 */
import { describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { providerSettingsSuite } from './support/organization-provider-settings.js';
import { createUser, request } from './support/test-server.js';

const KB_KEY = 'kb-organization-secret-333333';
const OTHER_KB_KEY = 'kb-rotated-secret-444444';
const KB_URL = 'https://kb.example.edu:9090';

describe.each(TEST_DIALECTS)('organization knowledge-base server and small fast model on %s', (dialect) => {
  const suite = providerSettingsSuite(dialect);
  const { patch, storedConfig, lastAudit, expectEachRefused } = suite;

  it('starts with neither set, and the server side sees none', async () => {
    const settings = await request(suite.server, 'GET', suite.path, { token: suite.adminToken });
    expect(settings.status).toBe(200);
    expect(settings.body.kb_server).toEqual({ url: null, api_key_set: false });
    expect(settings.body.small_fast_model).toBeNull();
    expect(await suite.server.services.providerSettings.knowledgeServerFor(suite.organizationId)).toBeUndefined();
    expect(await suite.server.services.providerSettings.smallFastModelFor(suite.organizationId)).toBeUndefined();
  });

  it('sets both without the providers field, never showing the key', async () => {
    const updated = await patch({
      kb_server: { url: KB_URL, api_key: KB_KEY },
      small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.kb_server).toEqual({ url: KB_URL, api_key_set: true });
    expect(updated.body.small_fast_model).toEqual({ connector: 'openai', model: 'gpt-4o-mini' });
    expect(updated.text).not.toContain(KB_KEY);
    const read = await request(suite.server, 'GET', suite.path, { token: suite.adminToken });
    expect(read.body.kb_server).toEqual({ url: KB_URL, api_key_set: true });
    expect(read.body.small_fast_model).toEqual({ connector: 'openai', model: 'gpt-4o-mini' });
    expect(read.text).not.toContain(KB_KEY);
    expect(await suite.server.services.providerSettings.knowledgeServerFor(suite.organizationId)).toEqual({
      url: KB_URL,
      apiKey: KB_KEY,
      fetch: expect.any(Function),
    });
    expect(await suite.server.services.providerSettings.smallFastModelFor(suite.organizationId)).toEqual({
      connector: 'openai',
      model: 'gpt-4o-mini',
    });
  });

  it('stores the key encrypted, and audits field names only, never values', async () => {
    const stored = await storedConfig();
    expect(stored.text).not.toContain(KB_KEY);
    expect(stored.json.kb_server.api_key).toMatch(/^v1:/);
    expect(stored.json.kb_server.url).toBe(KB_URL);
    const audit = await lastAudit();
    expect(audit.fields).toEqual(['kb_server.api_key', 'kb_server.url', 'small_fast_model']);
    for (const value of [KB_KEY, KB_URL, 'gpt-4o-mini', 'v1:']) expect(audit.text).not.toContain(value);
    expect(suite.server.logLines.filter((line) => line.includes(KB_KEY))).toEqual([]);
  });

  it('keeps what a patch leaves out', async () => {
    const before = (await storedConfig()).json.kb_server.api_key;
    const providersOnly = await patch({ providers: { ollama: { base_url: 'http://127.0.0.1:11434' } } });
    expect(providersOnly.status).toBe(200);
    expect(providersOnly.body.kb_server).toEqual({ url: KB_URL, api_key_set: true });
    expect(providersOnly.body.small_fast_model).toEqual({ connector: 'openai', model: 'gpt-4o-mini' });
    expect((await storedConfig()).json.kb_server.api_key).toBe(before);

    const urlOnly = await patch({ kb_server: { url: 'http://kb.internal:9090' } });
    expect(urlOnly.body.kb_server).toEqual({ url: 'http://kb.internal:9090', api_key_set: true });
    expect((await lastAudit()).fields).toEqual(['kb_server.url']);
    expect(await suite.server.services.providerSettings.knowledgeServerFor(suite.organizationId)).toEqual({
      url: 'http://kb.internal:9090',
      apiKey: KB_KEY,
      fetch: expect.any(Function),
    });

    const keyOnly = await patch({ kb_server: { api_key: OTHER_KB_KEY } });
    expect(keyOnly.body.kb_server).toEqual({ url: 'http://kb.internal:9090', api_key_set: true });
    expect(keyOnly.text).not.toContain(OTHER_KB_KEY);
    expect((await suite.server.services.providerSettings.knowledgeServerFor(suite.organizationId))?.apiKey).toBe(OTHER_KB_KEY);
    expect((await lastAudit()).fields).toEqual(['kb_server.api_key']);

    const model = await patch({ small_fast_model: { connector: 'ollama', model: 'llama3.2:1b' } });
    expect(model.body.small_fast_model).toEqual({ connector: 'ollama', model: 'llama3.2:1b' });
    expect(model.body.kb_server).toEqual({ url: 'http://kb.internal:9090', api_key_set: true });
  });

  it('clears with null: one field, the model, or the whole server', async () => {
    const keyCleared = await patch({ kb_server: { api_key: null } });
    expect(keyCleared.body.kb_server).toEqual({ url: 'http://kb.internal:9090', api_key_set: false });
    expect(await suite.server.services.providerSettings.knowledgeServerFor(suite.organizationId)).toEqual({
      url: 'http://kb.internal:9090',
      apiKey: undefined,
      fetch: expect.any(Function),
    });

    const modelCleared = await patch({ small_fast_model: null });
    expect(modelCleared.body.small_fast_model).toBeNull();
    expect(await suite.server.services.providerSettings.smallFastModelFor(suite.organizationId)).toBeUndefined();
    expect((await lastAudit()).fields).toEqual(['small_fast_model']);

    await patch({ kb_server: { api_key: KB_KEY } });
    const serverCleared = await patch({ kb_server: null });
    expect(serverCleared.status).toBe(200);
    expect(serverCleared.body.kb_server).toEqual({ url: null, api_key_set: false });
    expect((await lastAudit()).fields).toEqual(['kb_server.api_key', 'kb_server.url']);
    expect(await suite.server.services.providerSettings.knowledgeServerFor(suite.organizationId)).toBeUndefined();
    const stored = await storedConfig();
    expect(stored.json.kb_server).toBeUndefined();
    expect(stored.json.small_fast_model).toBeUndefined();
    expect(stored.json.providers.ollama.base_url).toBe('http://127.0.0.1:11434');
  });

  it('refuses invalid values with a 400 naming the field, changing nothing', async () => {
    await patch({ kb_server: { url: KB_URL, api_key: KB_KEY }, small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } });
    const before = (await storedConfig()).text;
    const cases: Array<[unknown, string]> = [
      [{ kb_server: { url: 'file:///etc/passwd' } }, 'kb_server.url'],
      [{ kb_server: { url: 'kb.example.edu' } }, 'kb_server.url'],
      [{ kb_server: { api_key: '' } }, 'kb_server.api_key'],
      [{ kb_server: { token: 'x' } }, 'kb_server.token'],
      [{ kb_server: 'https://kb.example.edu' }, 'kb_server'],
      [{ small_fast_model: { connector: 'bypass', model: 'gpt-4o-mini' } }, 'small_fast_model.connector'],
      [{ small_fast_model: { connector: 'openai' } }, 'small_fast_model.model'],
      [{ small_fast_model: { connector: 'openai', model: '' } }, 'small_fast_model.model'],
      [{ small_fast_model: 'gpt-4o-mini' }, 'small_fast_model'],
    ];
    await expectEachRefused(cases);
    expect((await patch({})).status).toBe(400);
    expect((await storedConfig()).text).toBe(before);
  });

  it('lets only the organization admins manage them: 403 for its members, 404 for outsiders', async () => {
    const creator = await createUser(suite.server, suite.adminToken, { email: `kb-member-${dialect}@merino.test`, role: 'creator' });
    const asCreator = await request(suite.server, 'PATCH', suite.path, {
      token: creator.token,
      body: { kb_server: { url: 'https://evil.example' } },
    });
    expect(asCreator.status).toBe(403);
    expect((await request(suite.server, 'GET', suite.path, { token: creator.token })).status).toBe(403);
    const otherOrganization = await insertOrganization(suite.server.store.db, `kb-other-${dialect}`, 'Other');
    const outsider = await createUser(suite.server, suite.adminToken, {
      email: `kb-outsider-${dialect}@merino.test`,
      role: 'admin',
      organization_id: otherOrganization,
    });
    const asOutsider = await request(suite.server, 'PATCH', suite.path, { token: outsider.token, body: { small_fast_model: null } });
    expect(asOutsider.status).toBe(404);
    expect((await request(suite.server, 'GET', suite.path, { token: outsider.token })).status).toBe(404);
    expect(await suite.server.services.providerSettings.knowledgeServerFor(suite.organizationId)).toEqual({
      url: KB_URL,
      apiKey: KB_KEY,
      fetch: expect.any(Function),
    });
    expect(await suite.server.services.providerSettings.smallFastModelFor(suite.organizationId)).toEqual({
      connector: 'openai',
      model: 'gpt-4o-mini',
    });
    // The outsider's own organization is theirs to manage, and starts empty.
    const own = await request(suite.server, 'GET', `/api/organizations/${otherOrganization}/providers`, { token: outsider.token });
    expect(own.body.kb_server).toEqual({ url: null, api_key_set: false });
  });
});
