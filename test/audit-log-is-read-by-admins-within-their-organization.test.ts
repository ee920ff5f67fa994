/**
 * GET /api/audit over real HTTP, on both stores: who may read the audit log (system admins every
 * entry, an organization's admins their organization's entries only, nobody else); its filters
 * (action or action family, who acted, target, a range of days, organization) and page; that no
 * secret, one-time password or text someone wrote ever reaches it; hostile query input refused
 * with a 400 naming the parameter; and 50 readers at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { ORGANIZATION_ROLES, organizationRoles, type OrganizationRole } from './support/two-organizations.js';

interface Entry {
  id: number;
  action: string;
  organization_id: number | null;
  actor_user_id: number | null;
  actor_email: string | null;
  target_type: string;
  target_id: string | null;
  created_at: string;
}

function day(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

describe.each(TEST_DIALECTS)('the audit log on %s', (dialect) => {
  let server: TestServer;
  let organizationA: number;
  let organizationB: number;
  let adminOfA: number;
  let learnerOfB: number;
  let tokens: Map<OrganizationRole, string | undefined>;

  const as = (role: OrganizationRole, path: string) => request(server, 'GET', path, { token: tokens.get(role) });
  const entries = async (role: OrganizationRole, query: string): Promise<Entry[]> => {
    const response = await as(role, `/api/audit?limit=200${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.items as Entry[];
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    const roles = await organizationRoles(server, adminToken, { named: true });
    ({ organizationA, organizationB, tokens } = roles);
    adminOfA = roles.people['admin of A'].id;
    const learner = { email: 'learner-b@merino.test', role: 'learner', organization_id: organizationB, name: 'learner-b' } as const;
    learnerOfB = (await createUser(server, adminToken, learner)).id;
    // A refused login is recorded for no organization.
    await request(server, 'POST', '/api/auth/login', { body: { email: 'admin-a@merino.test', password: 'not the password' } });
  });

  afterAll(async () => {
    await server.close();
  });

  it('lets system admins and organization admins read it, and refuses everyone else', async () => {
    const got: Record<string, number> = {};
    for (const role of ORGANIZATION_ROLES) got[role] = (await as(role, '/api/audit')).status;
    expect(got).toEqual({
      'system admin': 200,
      'admin of A': 200,
      'admin of B': 200,
      'creator of A': 403,
      'learner of A': 403,
      anonymous: 401,
    });
  });

  it("shows an organization's admins their organization's entries only, and system admins every entry", async () => {
    const seenByA = await entries('admin of A', '');
    expect(seenByA.length).toBeGreaterThan(0);
    expect(new Set(seenByA.map((entry) => entry.organization_id))).toEqual(new Set([organizationA]));
    const seenByB = await entries('admin of B', '');
    expect(new Set(seenByB.map((entry) => entry.organization_id))).toEqual(new Set([organizationB]));
    expect(seenByB.some((entry) => entry.action === 'user.create' && entry.target_id === String(learnerOfB))).toBe(true);
    const everything = await entries('system admin', '');
    expect(everything.some((entry) => entry.organization_id === null && entry.action === 'auth.login_failed')).toBe(true);
    const onlyB = await entries('system admin', `&organization_id=${organizationB}`);
    expect(onlyB.map((entry) => entry.id)).toEqual(seenByB.map((entry) => entry.id));
    expect((await as('admin of A', `/api/audit?organization_id=${organizationB}`)).status).toBe(404);
    expect((await as('admin of A', `/api/audit?organization_id=${organizationA}`)).status).toBe(200);
  });

  it('filters by action, action family, who acted, target and a range of days, newest first', async () => {
    const created = await entries('system admin', '&action=user.create');
    expect(created.length).toBe(5);
    expect(created.map((entry) => entry.id)).toEqual([...created.map((entry) => entry.id)].sort((a, b) => b - a));
    const userFamily = await entries('system admin', '&action=user');
    expect(userFamily.every((entry) => entry.action.startsWith('user.'))).toBe(true);
    expect(userFamily.length).toBeGreaterThanOrEqual(created.length);
    expect(await entries('system admin', '&action=use')).toEqual([]);
    const byAdminOfA = await entries('system admin', `&actor_user_id=${adminOfA}`);
    expect(byAdminOfA.length).toBeGreaterThan(0);
    expect(byAdminOfA.every((entry) => entry.actor_user_id === adminOfA)).toBe(true);
    const byText = await entries('system admin', '&actor=ADMIN-A%40merino');
    expect(byText.map((entry) => entry.id)).toEqual(byAdminOfA.map((entry) => entry.id));
    const aboutLearner = await entries('system admin', `&target_type=user&target_id=${learnerOfB}`);
    expect(aboutLearner.map((entry) => entry.action)).toContain('user.create');
    expect(aboutLearner.every((entry) => entry.target_id === String(learnerOfB))).toBe(true);
    const today = await entries('system admin', `&from=${day(-1)}&to=${day(1)}`);
    expect(today.length).toBe((await entries('system admin', '')).length);
    expect(await entries('system admin', `&from=${day(2)}`)).toEqual([]);
    expect(await entries('system admin', `&to=${day(-2)}`)).toEqual([]);
  });

  it('pages like every list, with the total of all matches', async () => {
    const whole = await entries('system admin', '');
    const first = await as('system admin', '/api/audit?limit=2');
    const second = await as('system admin', '/api/audit?limit=2&offset=2');
    expect(first.body.total).toBe(whole.length);
    expect([...first.body.items, ...second.body.items].map((entry: Entry) => entry.id)).toEqual(whole.slice(0, 4).map((entry) => entry.id));
  });

  it('never holds a secret, a one-time password or what someone wrote', async () => {
    const adminToken = tokens.get('system admin');
    const consumer = await request(server, 'POST', '/api/lti/consumers', { token: adminToken, body: { name: 'Moodle' } });
    expect(consumer.status, consumer.text).toBe(201);
    const reset = await request(server, 'POST', `/api/users/${learnerOfB}/password-reset`, { token: adminToken });
    expect(reset.status, reset.text).toBe(200);
    const key = await request(server, 'POST', '/api/api-keys', { token: adminToken, body: { name: 'script key' } });
    expect(key.status, key.text).toBe(201);
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: { name: 'Echo', metadata: { connector: 'bypass', llm: 'simple-bypass' } },
    });
    const chat = await request(server, 'POST', '/api/chats', {
      token: adminToken,
      body: { assistant_id: assistant.body.id, title: 'A private title' },
    });
    const asked = await request(server, 'POST', `/api/chats/${chat.body.id}/messages`, {
      token: adminToken,
      body: { content: 'My private question about photosynthesis' },
    });
    expect(asked.status, asked.text).toBe(200);
    const response = await as('system admin', '/api/audit?limit=200');
    expect(response.body.items.some((entry: Entry) => entry.action === 'user.password_reset')).toBe(true);
    for (const secret of [consumer.body.consumer_secret, reset.body.one_time_password, key.body.key, 'A private title', 'photosynthesis'])
      expect(response.text).not.toContain(secret);
  });

  it('refuses hostile query input with a 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['action=User.Create', 'action'],
      ['action=user.%25', 'action'],
      ['action=' + 'a'.repeat(101), 'action'],
      ['actor=' + 'a'.repeat(201), 'actor'],
      ['actor_user_id=0', 'actor_user_id'],
      ['actor_user_id=abc', 'actor_user_id'],
      ['target_type=user%27%3B--', 'target_type'],
      ['from=2025-02-30', 'from'],
      ['from=yesterday', 'from'],
      [`from=${day(1)}&to=${day(-1)}`, 'from'],
      ['to=2025-13-01', 'to'],
      ['organization_id=-1', 'organization_id'],
      ['limit=100000', 'limit'],
      ['colour=red', 'colour'],
    ];
    for (const [query, param] of cases) {
      const response = await as('system admin', `/api/audit?${query}`);
      expect(response.status, query).toBe(400);
      expect(JSON.stringify(response.body.error), query).toContain(param);
      expect(response.text).not.toMatch(/at .*\.ts:\d+/);
    }
  });

  it('answers 50 readers at once, each the same page', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_unused, index) => as(index % 2 === 0 ? 'system admin' : 'admin of A', '/api/audit?limit=20')),
    );
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 200));
    const totals = new Set(responses.filter((_response, index) => index % 2 === 0).map((response) => response.body.total));
    expect(totals.size).toBe(1);
  });
});
