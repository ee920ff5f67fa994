/**
 * Proves an organization's Moodle settings (Web Services REST URL and token) on
 * `/api/organizations/{id}/providers`: they can be set, kept (absent) and cleared (null); the token
 * is encrypted at rest and never returned, logged or audited; the server side reads them decrypted
 * and only when both are set; only the organization's admins manage them; bad values are 400s
 * naming the field. Runs on both dialects.
 */
import { describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { providerSettingsSuite } from './support/organization-provider-settings.js';
import { createUser, request } from './support/test-server.js';

const MOODLE_TOKEN = 'moodle-organization-token-7777777';
const ROTATED_TOKEN = 'moodle-rotated-token-8888888';
const MOODLE_URL = 'https://moodle.example.edu/webservice/rest/server.php';

describe.each(TEST_DIALECTS)('organization Moodle settings on %s', (dialect) => {
  const suite = providerSettingsSuite(dialect);
  const { patch, storedConfig, lastAudit, expectEachRefused } = suite;
  const moodleFor = () => suite.server.services.providerSettings.moodleFor(suite.organizationId);

  it('starts unset, and the server side sees no Moodle', async () => {
    const settings = await request(suite.server, 'GET', suite.path, { token: suite.adminToken });
    expect(settings.status).toBe(200);
    expect(settings.body.moodle).toEqual({ api_url: null, token_set: false });
    expect(await moodleFor()).toBeUndefined();
  });

  it('sets the URL and token, never showing the token', async () => {
    const updated = await patch({ moodle: { api_url: MOODLE_URL, token: MOODLE_TOKEN } });
    expect(updated.status).toBe(200);
    expect(updated.body.moodle).toEqual({ api_url: MOODLE_URL, token_set: true });
    expect(updated.text).not.toContain(MOODLE_TOKEN);
    const read = await request(suite.server, 'GET', suite.path, { token: suite.adminToken });
    expect(read.body.moodle).toEqual({ api_url: MOODLE_URL, token_set: true });
    expect(read.text).not.toContain(MOODLE_TOKEN);
    expect(await moodleFor()).toEqual({ apiUrl: MOODLE_URL, token: MOODLE_TOKEN, fetch: expect.any(Function) });
  });

  it('stores the token encrypted, and audits field names only, never values', async () => {
    const stored = await storedConfig();
    expect(stored.text).not.toContain(MOODLE_TOKEN);
    expect(stored.json.moodle.token).toMatch(/^v1:/);
    expect(stored.json.moodle.api_url).toBe(MOODLE_URL);
    const audit = await lastAudit();
    expect(audit.fields).toEqual(['moodle.api_url', 'moodle.token']);
    for (const value of [MOODLE_TOKEN, MOODLE_URL, 'v1:']) expect(audit.text).not.toContain(value);
    expect(suite.server.logLines.filter((line) => line.includes(MOODLE_TOKEN))).toEqual([]);
  });

  it('keeps what a patch leaves out, and rotates the token alone', async () => {
    const sealed = (await storedConfig()).json.moodle.token;
    const other = await patch({ small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } });
    expect(other.body.moodle).toEqual({ api_url: MOODLE_URL, token_set: true });
    expect((await storedConfig()).json.moodle.token).toBe(sealed);

    const urlOnly = await patch({ moodle: { api_url: 'http://moodle.internal/webservice/rest/server.php' } });
    expect(urlOnly.body.moodle).toEqual({ api_url: 'http://moodle.internal/webservice/rest/server.php', token_set: true });
    expect((await lastAudit()).fields).toEqual(['moodle.api_url']);
    expect(await moodleFor()).toEqual({
      apiUrl: 'http://moodle.internal/webservice/rest/server.php',
      token: MOODLE_TOKEN,
      fetch: expect.any(Function),
    });

    const tokenOnly = await patch({ moodle: { token: ROTATED_TOKEN } });
    expect(tokenOnly.text).not.toContain(ROTATED_TOKEN);
    expect((await moodleFor())?.token).toBe(ROTATED_TOKEN);
    expect((await lastAudit()).fields).toEqual(['moodle.token']);
  });

  it('counts as configured only with both a URL and a token', async () => {
    const tokenCleared = await patch({ moodle: { token: null } });
    expect(tokenCleared.body.moodle).toEqual({ api_url: 'http://moodle.internal/webservice/rest/server.php', token_set: false });
    expect(await moodleFor()).toBeUndefined();

    await patch({ moodle: { api_url: null, token: MOODLE_TOKEN } });
    expect((await request(suite.server, 'GET', suite.path, { token: suite.adminToken })).body.moodle).toEqual({
      api_url: null,
      token_set: true,
    });
    expect(await moodleFor()).toBeUndefined();
  });

  it('clears both with moodle: null, leaving the other settings alone', async () => {
    await patch({ moodle: { api_url: MOODLE_URL, token: MOODLE_TOKEN }, kb_server: { url: 'http://kb.internal:9090' } });
    const cleared = await patch({ moodle: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.moodle).toEqual({ api_url: null, token_set: false });
    expect(cleared.body.kb_server).toEqual({ url: 'http://kb.internal:9090', api_key_set: false });
    expect((await lastAudit()).fields).toEqual(['moodle.api_url', 'moodle.token']);
    const stored = await storedConfig();
    expect(stored.json.moodle).toBeUndefined();
    expect(stored.json.kb_server.url).toBe('http://kb.internal:9090');
    expect(await moodleFor()).toBeUndefined();
  });

  it('refuses invalid values with a 400 naming the field, changing nothing', async () => {
    await patch({ moodle: { api_url: MOODLE_URL, token: MOODLE_TOKEN } });
    const before = (await storedConfig()).text;
    const cases: Array<[unknown, string]> = [
      [{ moodle: { api_url: 'ftp://moodle.example.edu/server.php' } }, 'moodle.api_url'],
      [{ moodle: { api_url: 'moodle.example.edu' } }, 'moodle.api_url'],
      [{ moodle: { token: '' } }, 'moodle.token'],
      [{ moodle: { wstoken: 'x' } }, 'moodle.wstoken'],
      [{ moodle: MOODLE_URL }, 'moodle'],
    ];
    for (const refusal of await expectEachRefused(cases)) expect(refusal.text).not.toContain(MOODLE_TOKEN);
    expect((await storedConfig()).text).toBe(before);
  });

  it("lets only the organization's admins manage them", async () => {
    const creator = await createUser(suite.server, suite.adminToken, { email: `moodle-member-${dialect}@merino.test`, role: 'creator' });
    const asCreator = await request(suite.server, 'PATCH', suite.path, {
      token: creator.token,
      body: { moodle: { api_url: 'https://evil.example/webservice/rest/server.php' } },
    });
    expect(asCreator.status).toBe(403);
    expect((await request(suite.server, 'GET', suite.path, { token: creator.token })).status).toBe(403);
    expect(await moodleFor()).toEqual({ apiUrl: MOODLE_URL, token: MOODLE_TOKEN, fetch: expect.any(Function) });
  });
});
