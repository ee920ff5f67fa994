/**
 * The user list's filters over real HTTP, on both stores: by role, by status (active or disabled)
 * and, for system admins, by organization; an organization admin naming another organization is
 * answered 404 and never sees its people. /api/me tells the admin pages who administers what.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

interface Listed {
  id: number;
  email: string;
  role: string;
  disabled: boolean;
  organization_id: number;
}

describe.each(TEST_DIALECTS)('user list filters on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let adminOfA: string;
  let creatorOfA: string;
  let organizationA: number;
  let organizationB: number;

  const listed = async (token: string, query: string): Promise<Listed[]> => {
    const response = await request(server, 'GET', `/api/users?limit=200${query}`, { token });
    expect(response.status, response.text).toBe(200);
    return response.body.items as Listed[];
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    organizationA = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    organizationB = (await request(server, 'POST', '/api/organizations', { token: adminToken, body: { name: 'B', slug: 'faculty-b' } }))
      .body.id;
    adminOfA = (await createUser(server, adminToken, { email: 'admin-a@merino.test', role: 'admin' })).token;
    creatorOfA = (await createUser(server, adminToken, { email: 'creator-a@merino.test', role: 'creator' })).token;
    const quiet = await createUser(server, adminToken, { email: 'quiet-a@merino.test', role: 'learner' });
    await request(server, 'PATCH', `/api/users/${quiet.id}`, { token: adminToken, body: { disabled: true } });
    await createUser(server, adminToken, { email: 'learner-b@merino.test', role: 'learner', organization_id: organizationB });
  });

  afterAll(async () => {
    await server.close();
  });

  it('filters by role, status and organization', async () => {
    expect((await listed(adminToken, '&role=creator')).map((user) => user.email)).toEqual(['creator-a@merino.test']);
    expect((await listed(adminToken, '&status=disabled')).map((user) => user.email)).toEqual(['quiet-a@merino.test']);
    expect((await listed(adminToken, '&status=active')).some((user) => user.disabled)).toBe(false);
    expect((await listed(adminToken, `&organization_id=${organizationB}`)).map((user) => user.email)).toEqual(['learner-b@merino.test']);
    expect((await listed(adminToken, `&role=learner&organization_id=${organizationA}&q=QUIET`)).map((user) => user.email)).toEqual([
      'quiet-a@merino.test',
    ]);
  });

  it("keeps an organization admin to their own organization's people", async () => {
    const own = await listed(adminOfA, '&role=learner');
    expect(own.map((user) => user.email)).toEqual(['quiet-a@merino.test']);
    const refused = await request(server, 'GET', `/api/users?organization_id=${organizationB}`, { token: adminOfA });
    expect(refused.status).toBe(404);
    expect(refused.body.error.param).toBe('organization_id');
    expect((await request(server, 'GET', '/api/users?role=creator', { token: creatorOfA })).status).toBe(403);
  });

  it('refuses a role or status it does not know, naming the parameter', async () => {
    for (const [query, param] of [
      ['role=owner', 'role'],
      ['status=gone', 'status'],
      ['organization_id=0', 'organization_id'],
    ]) {
      const response = await request(server, 'GET', `/api/users?${query}`, { token: adminToken });
      expect(response.status, query).toBe(400);
      expect(JSON.stringify(response.body.error)).toContain(param);
    }
  });

  it('tells through /api/me who administers people and who manages organizations', async () => {
    for (const [token, administer, manageOrganizations] of [
      [adminToken, true, true],
      [adminOfA, true, false],
      [creatorOfA, false, false],
    ] as const) {
      const me = await request(server, 'GET', '/api/me', { token });
      expect(me.body.capabilities).toMatchObject({ administer, manage_organizations: manageOrganizations });
    }
  });
});
