/**
 * Proves an organization's web search provider on `/api/organizations/{id}/providers`: SearXNG,
 * Brave or Tavily can be set, kept and cleared; the key is encrypted at rest and never returned,
 * logged or audited; switching providers forgets the other's URL and key; the server side reads it
 * only once usable; only the organization's admins manage it (owner, same-organization user,
 * other-organization admin, learner, anonymous); hostile values are 400s naming the field; and 50
 * updates at once all land. Runs on both dialects.
 */
import { describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { providerSettingsSuite } from './support/organization-provider-settings.js';
import { createUser, request } from './support/test-server.js';

const BRAVE_KEY = 'BSA-brave-key-for-tests-1234567';
const TAVILY_KEY = 'tvly-tavily-key-for-tests-7654321';
const SEARXNG_URL = 'https://searx.example.org';

describe.each(TEST_DIALECTS)('organization web search provider on %s', (dialect) => {
  const suite = providerSettingsSuite(dialect);
  const { patch, storedConfig, lastAudit } = suite;
  const webSearchFor = () => suite.server.services.providerSettings.webSearchFor(suite.organizationId);

  it('starts unset, and the server side sees no provider', async () => {
    const settings = await request(suite.server, 'GET', suite.path, { token: suite.adminToken });
    expect(settings.status).toBe(200);
    expect(settings.body.web_search).toEqual({ provider: null, url: null, api_key_set: false });
    expect(await webSearchFor()).toBeUndefined();
  });

  it('sets Brave with its key, never showing, storing in clear, logging or auditing the key', async () => {
    const updated = await patch({ web_search: { provider: 'brave', api_key: BRAVE_KEY } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.web_search).toEqual({ provider: 'brave', url: null, api_key_set: true });
    expect(updated.text).not.toContain(BRAVE_KEY);
    const read = await request(suite.server, 'GET', suite.path, { token: suite.adminToken });
    expect(read.text).not.toContain(BRAVE_KEY);
    expect(await webSearchFor()).toMatchObject({ provider: 'brave', url: 'https://api.search.brave.com', apiKey: BRAVE_KEY });
    const stored = await storedConfig();
    expect(stored.text).not.toContain(BRAVE_KEY);
    expect(stored.json.web_search.api_key).toMatch(/^v1:/);
    const audit = await lastAudit();
    expect(audit.fields).toEqual(['web_search.api_key', 'web_search.provider']);
    expect(audit.text).not.toContain(BRAVE_KEY);
    expect(suite.server.logLines.filter((line) => line.includes(BRAVE_KEY))).toEqual([]);
  });

  it('forgets the Brave key when switching to Tavily, which then needs its own key', async () => {
    const switched = await patch({ web_search: { provider: 'tavily' } });
    expect(switched.body.web_search).toEqual({ provider: 'tavily', url: null, api_key_set: false });
    expect(await webSearchFor()).toBeUndefined();
    await patch({ web_search: { api_key: TAVILY_KEY } });
    expect(await webSearchFor()).toMatchObject({ provider: 'tavily', url: 'https://api.tavily.com', apiKey: TAVILY_KEY });
  });

  it('sets a SearXNG instance by URL alone, and clears everything with null', async () => {
    const searxng = await patch({ web_search: { provider: 'searxng', url: SEARXNG_URL } });
    expect(searxng.body.web_search).toEqual({ provider: 'searxng', url: SEARXNG_URL, api_key_set: false });
    expect(await webSearchFor()).toMatchObject({ provider: 'searxng', url: SEARXNG_URL });
    expect((await webSearchFor())?.apiKey).toBeUndefined();
    const kept = await patch({ small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } });
    expect(kept.body.web_search).toEqual({ provider: 'searxng', url: SEARXNG_URL, api_key_set: false });
    const cleared = await patch({ web_search: null });
    expect(cleared.body.web_search).toEqual({ provider: null, url: null, api_key_set: false });
    expect((await storedConfig()).json).not.toHaveProperty('web_search');
  });

  it('lets only the organization admins read and change it', async () => {
    const creator = await createUser(suite.server, suite.adminToken, { email: `ws-creator-${dialect}@merino.test`, role: 'creator' });
    const learner = await createUser(suite.server, suite.adminToken, { email: `ws-learner-${dialect}@merino.test`, role: 'learner' });
    const otherOrganization = await insertOrganization(suite.server.store.db, `ws-other-${dialect}`, 'Other');
    const outsider = await createUser(suite.server, suite.adminToken, {
      email: `ws-outsider-${dialect}@merino.test`,
      role: 'admin',
      organization_id: otherOrganization,
    });
    const body = { web_search: { provider: 'brave', api_key: 'stolen-key-attempt' } };
    expect((await request(suite.server, 'GET', suite.path, { token: suite.adminToken })).status).toBe(200);
    expect((await patch(body, creator.token)).status).toBe(403);
    expect((await request(suite.server, 'GET', suite.path, { token: creator.token })).status).toBe(403);
    expect((await patch(body, learner.token)).status).toBe(403);
    expect((await patch(body, outsider.token)).status).toBe(404);
    expect((await request(suite.server, 'PATCH', suite.path, { body })).status).toBe(401);
    expect((await request(suite.server, 'GET', suite.path, {})).status).toBe(401);
    expect(await webSearchFor()).toBeUndefined();
  });

  it.each([
    [{ web_search: { provider: 'google' } }, 'web_search.provider'],
    [{ web_search: { provider: 'searxng', url: 'file:///etc/passwd' } }, 'web_search.url'],
    [{ web_search: { provider: 'searxng', url: 'http://169.254.169.254/' } }, 'web_search.url'],
    [{ web_search: { provider: 'searxng', url: 'http://localhost:8080' } }, 'web_search.url'],
    [{ web_search: { provider: 'brave', api_key: 'key with spaces\n' } }, 'web_search.api_key'],
    [{ web_search: { provider: 'brave', api_key: 'x'.repeat(1_001) } }, 'web_search.api_key'],
    [{ web_search: { provider: 'brave', password: 'x' } }, 'web_search'],
    [{ web_search: 'brave' }, 'web_search'],
  ])('refuses hostile input %j with a 400 naming the field', async (body, field) => {
    const response = await patch(body);
    expect([400, 422], response.text).toContain(response.status);
    expect(String(response.body.error.param ?? response.body.error.message)).toContain(field);
    expect(response.text).not.toContain('x'.repeat(1_001));
  });

  it('takes 50 updates at once, each answering 200, and ends on one of them', async () => {
    const keys = Array.from({ length: 50 }, (_, index) => `BSA-concurrent-key-${index}-abcdef`);
    const responses = await Promise.all(keys.map((key) => patch({ web_search: { provider: 'brave', api_key: key } })));
    expect(responses.map((response) => response.status)).toEqual(keys.map(() => 200));
    for (const [index, response] of responses.entries()) expect(response.text).not.toContain(keys[index]);
    expect(keys).toContain((await webSearchFor())?.apiKey);
  });
});
