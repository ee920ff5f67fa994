/**
 * The access matrix of issue 31's endpoints, over real HTTP on both stores: every role of two
 * organizations (and a system admin, and nobody) against every organization, user, settings,
 * providers, usage, model-price and sign-up endpoint, each aimed at organization A and then, the
 * roles mirrored, at organization B. The table below is the policy: a cell is the status the role
 * gets. An organization's admins manage its people, settings, prices, sign-up and usage; they may
 * read their organization but not rename, suspend, delete or leave it (system admins do); its
 * creators and learners see their own usage and get 403 on the rest; anyone from another
 * organization gets 404, so other organizations cannot be found by id; nobody signed in gets 401.
 * Beyond statuses, the lists and reports an admin gets hold nothing of the other organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDailyUsage } from '../src/store/usage-daily-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const ROLES = ['system admin', 'A admin', 'A creator', 'A learner', 'B admin', 'B creator', 'B learner', 'anonymous'] as const;
type Role = (typeof ROLES)[number];
type Statuses = readonly [number, number, number, number, number, number, number, number];
/** Where a role's answer differs when the call is aimed at A, the organization created at first start. */
type FirstOrganizationStatuses = Partial<Record<Role, number>>;

interface Target {
  /** The organization the call is aimed at (A, or B when the roles are mirrored). */
  organizationId: number;
  /** The other organization. */
  otherOrganizationId: number;
  /** A learner of the aimed-at organization, made afresh for each call. */
  freshMember: () => Promise<number>;
  unique: string;
}

interface Cell {
  method: string;
  path: (target: Target) => string | Promise<string>;
  body?: (target: Target) => unknown;
}

// prettier-ignore
/** The policy. Columns: system admin, A admin, A creator, A learner, B admin, B creator, B learner, anonymous; each call is aimed at A. */
const MATRIX: ReadonlyArray<[string, Cell, Statuses, FirstOrganizationStatuses?]> = [
  //                                                                                                          sys  A adm A cre A lrn B adm B cre B lrn anon
  ['POST /api/organizations', { method: 'POST', path: () => '/api/organizations', body: (t) => ({ name: `Org ${t.unique}`, slug: `org-${t.unique}` }) },
                                                                                                             [201, 403,  403,  403,  403,  403,  403,  401]],
  ['GET /api/organizations', { method: 'GET', path: () => '/api/organizations' },                           [200, 403,  403,  403,  403,  403,  403,  401]],
  ['GET /api/organizations/{A}', { method: 'GET', path: (t) => `/api/organizations/${t.organizationId}` },  [200, 200,  403,  403,  404,  404,  404,  401]],
  ['PATCH /api/organizations/{A}', { method: 'PATCH', path: (t) => `/api/organizations/${t.organizationId}`, body: () => ({ status: 'active' }) },
                                                                                                             [200, 403,  403,  403,  404,  404,  404,  401]],
  ['DELETE /api/organizations/{A} (not empty)', { method: 'DELETE', path: (t) => `/api/organizations/${t.organizationId}` },
                                                                                                             [409, 403,  403,  403,  404,  404,  404,  401],
    // The organization created at first start holds the system admins: it is never deleted.
    { 'system admin': 403 }],
  ['POST /api/users into A', { method: 'POST', path: () => '/api/users',
    body: (t) => ({ email: `new-${t.unique}@merino.test`, password: 'a long enough password', role: 'learner', organization_id: t.organizationId }) },
                                                                                                             [201, 201,  403,  403,  403,  403,  403,  401]],
  ['GET /api/users', { method: 'GET', path: () => '/api/users' },                                           [200, 200,  403,  403,  200,  403,  403,  401]],
  ['GET /api/users/{member of A}', { method: 'GET', path: async (t) => `/api/users/${await t.freshMember()}` },
                                                                                                             [200, 200,  404,  404,  404,  404,  404,  401]],
  ['PATCH /api/users/{member of A} role', { method: 'PATCH', path: async (t) => `/api/users/${await t.freshMember()}`, body: () => ({ role: 'creator' }) },
                                                                                                             [200, 200,  404,  404,  404,  404,  404,  401]],
  ['PATCH /api/users/{member of A} disable', { method: 'PATCH', path: async (t) => `/api/users/${await t.freshMember()}`, body: () => ({ disabled: true }) },
                                                                                                             [200, 200,  404,  404,  404,  404,  404,  401]],
  ['PATCH /api/users/{member of A} move to B', { method: 'PATCH', path: async (t) => `/api/users/${await t.freshMember()}`,
    body: (t) => ({ organization_id: t.otherOrganizationId }) },                                             [200, 403,  404,  404,  404,  404,  404,  401]],
  ['POST /api/users/{member of A}/password-reset', { method: 'POST', path: async (t) => `/api/users/${await t.freshMember()}/password-reset` },
                                                                                                             [200, 200,  404,  404,  404,  404,  404,  401]],
  ['GET /api/organizations/{A}/settings', { method: 'GET', path: (t) => `/api/organizations/${t.organizationId}/settings` },
                                                                                                             [200, 200,  403,  403,  404,  404,  404,  401]],
  ['PATCH /api/organizations/{A}/settings', { method: 'PATCH', path: (t) => `/api/organizations/${t.organizationId}/settings`,
    body: () => ({ learners_create_api_keys: true }) },                                                      [200, 200,  403,  403,  404,  404,  404,  401]],
  ['GET /api/organizations/{A}/providers', { method: 'GET', path: (t) => `/api/organizations/${t.organizationId}/providers` },
                                                                                                             [200, 200,  403,  403,  404,  404,  404,  401]],
  ['PATCH /api/organizations/{A}/providers', { method: 'PATCH', path: (t) => `/api/organizations/${t.organizationId}/providers`,
    body: () => ({ providers: { openai: { base_url: null } } }) },                                           [200, 200,  403,  403,  404,  404,  404,  401]],
  ['GET /api/usage?organization_id={A}', { method: 'GET', path: (t) => `/api/usage?organization_id=${t.organizationId}` },
                                                                                                             [200, 200,  200,  200,  404,  404,  404,  401]],
  ['GET /api/usage?organization_id={A}&format=csv', { method: 'GET', path: (t) => `/api/usage?organization_id=${t.organizationId}&format=csv` },
                                                                                                             [200, 200,  200,  200,  404,  404,  404,  401]],
  ['GET /api/organizations/{A}/model-prices', { method: 'GET', path: (t) => `/api/organizations/${t.organizationId}/model-prices` },
                                                                                                             [200, 200,  403,  403,  404,  404,  404,  401]],
  ['PUT /api/organizations/{A}/model-prices', { method: 'PUT', path: (t) => `/api/organizations/${t.organizationId}/model-prices`,
    body: () => ({ prices: [{ model: 'gpt-4o-mini', input_usd_per_million: 0.15, output_usd_per_million: 0.6 }] }) },
                                                                                                             [200, 200,  403,  403,  404,  404,  404,  401]],
  ['GET /api/organizations/{A}/sign-up', { method: 'GET', path: (t) => `/api/organizations/${t.organizationId}/sign-up` },
                                                                                                             [200, 200,  403,  403,  404,  404,  404,  401]],
  ['PUT /api/organizations/{A}/sign-up', { method: 'PUT', path: (t) => `/api/organizations/${t.organizationId}/sign-up`,
    body: () => ({ enabled: true, role: 'learner' }) },                                                      [200, 200,  403,  403,  404,  404,  404,  401]],
  ['POST /api/organizations/{A}/sign-up/rotate', { method: 'POST', path: (t) => `/api/organizations/${t.organizationId}/sign-up/rotate` },
                                                                                                             [200, 200,  403,  403,  404,  404,  404,  401]],
];

/** The same role with A and B swapped, for the calls aimed at B. */
function mirrored(role: Role): Role {
  return role.startsWith('A ') ? (`B ${role.slice(2)}` as Role) : role.startsWith('B ') ? (`A ${role.slice(2)}` as Role) : role;
}

describe.each(TEST_DIALECTS)('the organization access matrix on %s', (dialect) => {
  let server: TestServer;
  const tokens = new Map<Role, string | undefined>();
  const organizations = { A: 0, B: 0 };
  let calls = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const systemAdmin = await loginAsAdmin(server);
    tokens.set('system admin', systemAdmin);
    tokens.set('anonymous', undefined);
    organizations.A = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id;
    const created = await request(server, 'POST', '/api/organizations', {
      token: systemAdmin,
      body: { name: 'Faculty B', slug: `faculty-b-${dialect}` },
    });
    expect(created.status, created.text).toBe(201);
    organizations.B = created.body.id;
    for (const organization of ['A', 'B'] as const)
      for (const role of ['admin', 'creator', 'learner'] as const) {
        const user = await createUser(server, systemAdmin, {
          email: `matrix-${organization}-${role}-${dialect}@merino.test`.toLowerCase(),
          role,
          organization_id: organizations[organization],
        });
        tokens.set(`${organization} ${role}`, user.token);
      }
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  function targetOf(organization: 'A' | 'B'): Target {
    calls += 1;
    const unique = `${dialect}-${organization}-${calls}`.toLowerCase();
    const organizationId = organizations[organization];
    return {
      organizationId,
      otherOrganizationId: organization === 'A' ? organizations.B : organizations.A,
      unique,
      freshMember: async () =>
        (
          await createUser(server, tokens.get('system admin')!, {
            email: `member-${unique}@merino.test`,
            role: 'learner',
            organization_id: organizationId,
          })
        ).id,
    };
  }

  it.each(MATRIX)(
    '%s answers each role as the table says, aimed at A and at B',
    async (_name, cell, expected, atFirst) => {
      const violations: string[] = [];
      for (const organization of ['A', 'B'] as const)
        for (const [column, role] of ROLES.entries()) {
          const caller = organization === 'A' ? role : mirrored(role);
          const target = targetOf(organization);
          const path = await cell.path(target);
          const body = cell.body?.(target);
          const answer = await request(server, cell.method, path, { token: tokens.get(caller), ...(body !== undefined && { body }) });
          const wanted = (organization === 'A' ? atFirst?.[role] : undefined) ?? expected[column];
          if (answer.status !== wanted)
            violations.push(`${caller} → ${cell.method} ${path}: ${answer.status}, expected ${wanted} (${answer.text.slice(0, 160)})`);
        }
      expect(violations).toEqual([]);
      // Cells that make a fresh member for each call hash 16 passwords: slow on a busy machine.
    },
    180_000,
  );

  it("gives an organization admin's lists and reports nothing of the other organization", async () => {
    await addDailyUsage(server.store.db, [
      {
        day: '2026-01-05',
        organization_id: organizations.A,
        user_id: 910_001,
        assistant_id: 920_001,
        model: 'gpt-4o',
        requests: 3,
        prompt_tokens: 30,
        completion_tokens: 3,
        cost_micro_usd: 0,
      },
      {
        day: '2026-01-05',
        organization_id: organizations.B,
        user_id: 910_002,
        assistant_id: 920_002,
        model: 'gpt-4o',
        requests: 5,
        prompt_tokens: 50,
        completion_tokens: 5,
        cost_micro_usd: 0,
      },
    ]);
    for (const [own, other] of [
      ['A', 'B'],
      ['B', 'A'],
    ] as const) {
      const token = tokens.get(`${own} admin`);
      const users = await request(server, 'GET', '/api/users?limit=200', { token });
      expect(users.status, users.text).toBe(200);
      const listed = users.body.items as Array<{ organization_id: number; email: string }>;
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.filter((user) => user.organization_id !== organizations[own]).map((user) => user.email)).toEqual([]);
      for (const groupBy of ['user', 'assistant', 'model', 'day']) {
        const report = await request(server, 'GET', `/api/usage?from=2026-01-01&to=2026-01-31&group_by=${groupBy}`, { token });
        expect(report.status, report.text).toBe(200);
        expect(report.body.totals.requests, `${own} admin by ${groupBy}`).toBe(own === 'A' ? 3 : 5);
        const keys = report.body.groups.map((group: { key: string }) => group.key);
        expect(keys).not.toContain(String(own === 'A' ? 910_002 : 910_001));
        expect(keys).not.toContain(String(own === 'A' ? 920_002 : 920_001));
      }
      const otherReport = await request(server, 'GET', `/api/usage?organization_id=${organizations[other]}`, { token });
      expect(otherReport.status).toBe(404);
    }
  });
});
