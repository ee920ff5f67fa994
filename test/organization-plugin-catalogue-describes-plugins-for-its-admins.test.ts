/**
 * GET /api/organizations/{id}/plugins over real HTTP, on both stores: it lists every installed
 * tool, connector and prompt processor with a name to show, its description and the
 * organization's enabled state, which follows a settings change at once; only the organization's
 * own admins and system admins read it (another organization's admin and anyone outside: 404; its
 * creators and learners: 403; anonymous: 401); hostile ids are 4xx naming the problem; and 50
 * reads at once all answer the same list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { ORGANIZATION_ROLES, organizationRoles, type OrganizationRole } from './support/two-organizations.js';

interface Entry {
  name: string;
  display_name: string;
  description: string;
  enabled: boolean;
}

describe.each(TEST_DIALECTS)('the plugin catalogue of an organization on %s', (dialect) => {
  let server: TestServer;
  let organizationA: number;
  let organizationB: number;
  let tokens: Map<OrganizationRole, string | undefined>;

  const as = (role: OrganizationRole, method: string, path: string, body?: unknown) =>
    request(server, method, path, { token: tokens.get(role), ...(body !== undefined && { body }) });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    ({ organizationA, organizationB, tokens } = await organizationRoles(server, await loginAsAdmin(server), { emailPrefix: 'plugins-' }));
  }, 60_000);

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('describes every installed plugin with the enabled state the settings document shows, and follows a change', async () => {
    const path = `/api/organizations/${organizationA}/plugins`;
    const before = await as('admin of A', 'GET', path);
    expect(before.status, before.text).toBe(200);
    const weather = (before.body.tools as Entry[]).find((entry) => entry.name === 'weather');
    expect(weather).toMatchObject({ enabled: true });
    expect(weather?.display_name).not.toBe('');
    expect(weather?.description).not.toBe('');
    expect((before.body.connectors as Entry[]).map((entry) => entry.name)).toEqual(expect.arrayContaining(['openai', 'ollama']));
    expect((before.body.prompt_processors as Entry[]).map((entry) => entry.name)).toEqual(expect.arrayContaining(['simple_augment']));

    const settings = await as('admin of A', 'GET', `/api/organizations/${organizationA}/settings`);
    for (const kind of ['tools', 'connectors', 'prompt_processors'] as const) {
      const states = Object.fromEntries((before.body[kind] as Entry[]).map((entry) => [entry.name, entry.enabled]));
      expect(states).toEqual(settings.body.plugins[kind]);
    }

    const patched = await as('admin of A', 'PATCH', `/api/organizations/${organizationA}/settings`, {
      plugins: { tools: { weather: false }, prompt_processors: { moodle_augment: false } },
    });
    expect(patched.status, patched.text).toBe(200);
    const after = await as('admin of A', 'GET', path);
    expect((after.body.tools as Entry[]).find((entry) => entry.name === 'weather')?.enabled).toBe(false);
    expect((after.body.prompt_processors as Entry[]).find((entry) => entry.name === 'moodle_augment')?.enabled).toBe(false);
    // The other organization keeps its own states.
    const other = await as('admin of B', 'GET', `/api/organizations/${organizationB}/plugins`);
    expect((other.body.tools as Entry[]).find((entry) => entry.name === 'weather')?.enabled).toBe(true);
  });

  it("answers only the organization's admins and system admins", async () => {
    const got: Record<string, number> = {};
    for (const role of ORGANIZATION_ROLES) got[role] = (await as(role, 'GET', `/api/organizations/${organizationA}/plugins`)).status;
    expect(got).toEqual({
      'system admin': 200,
      'admin of A': 200,
      'admin of B': 404,
      'creator of A': 403,
      'learner of A': 403,
      anonymous: 401,
    });
    const refused = await as('creator of A', 'GET', `/api/organizations/${organizationA}/plugins`);
    expect(refused.body.error.code).toBe('forbidden');
    const hidden = await as('admin of B', 'GET', `/api/organizations/${organizationA}/plugins`);
    expect(hidden.body.error).toMatchObject({ code: 'not_found', message: 'Organization not found.' });
  });

  it('refuses hostile ids with a 4xx naming the problem', async () => {
    for (const id of ['0', '-1', 'abc', '1.5', '99999999999999999999', '%27%20OR%201=1']) {
      const response = await as('system admin', 'GET', `/api/organizations/${id}/plugins`);
      expect(response.status, `${id}: ${response.text}`).toBeGreaterThanOrEqual(400);
      expect(response.status, id).toBeLessThan(500);
      expect(response.body.error.message, id).toMatch(/\S/);
    }
    const missing = await as('system admin', 'GET', '/api/organizations/987654/plugins');
    expect(missing.status).toBe(404);
    const withQuery = await as('admin of A', 'GET', `/api/organizations/${organizationA}/plugins?tools[]=x`);
    expect(withQuery.status).toBeLessThan(500);
  });

  it('answers 50 reads at once with the same list', async () => {
    const path = `/api/organizations/${organizationA}/plugins`;
    const responses = await Promise.all(Array.from({ length: 50 }, () => as('admin of A', 'GET', path)));
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
  });
});
