/**
 * The access matrix of the template library (docs/templates.md), over real HTTP on both stores:
 * every role (a system admin; in organization A the templates' owner, another creator, an admin
 * and a learner; a creator of organization B; nobody) against every templates endpoint, aimed at
 * a personal, an organization-shared and a system-wide template made afresh for each call. The
 * table is the policy: a cell is the status the role gets. Beyond statuses, the list each role
 * gets never holds a personal template of someone else or another organization's shared one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { RUBRIC_CONTENT } from './support/template-bodies.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const ROLES = ['system admin', 'owner', 'A creator', 'A admin', 'A learner', 'B creator', 'anonymous'] as const;
type Role = (typeof ROLES)[number];
type Statuses = readonly [number, number, number, number, number, number, number];

/** What a cell's call is aimed at, made afresh for it. */
interface Target {
  personal: number;
  shared: number;
  system: number;
  assistant: number;
  sharedRubric: string;
  privateRubric: string;
}

interface Cell {
  method: string;
  path: (target: Target) => string;
  body?: unknown;
}

const PROMPT = { kind: 'prompt', name: 'Socratic tutor', system_prompt: 'Ask, do not tell.', prompt_template: '{user_input}' };

// prettier-ignore
/** The policy. Columns: system admin, owner, A creator, A admin, A learner, B creator, anonymous. */
const MATRIX: ReadonlyArray<[string, Cell, Statuses]> = [
  //                                                                                                              sys  own  A cr A ad A ln B cr anon
  ['GET /api/templates', { method: 'GET', path: () => '/api/templates' },                                        [200, 200, 200, 200, 403, 200, 401]],
  ['POST /api/templates (personal)', { method: 'POST', path: () => '/api/templates', body: PROMPT },             [201, 201, 201, 201, 403, 201, 401]],
  ['POST /api/templates (organization)', { method: 'POST', path: () => '/api/templates', body: { ...PROMPT, visibility: 'organization' } },
                                                                                                                 [201, 201, 201, 201, 403, 201, 401]],
  ['POST /api/templates (system)', { method: 'POST', path: () => '/api/templates', body: { ...PROMPT, visibility: 'system' } },
                                                                                                                 [201, 403, 403, 403, 403, 403, 401]],
  ['GET personal', { method: 'GET', path: (t) => `/api/templates/${t.personal}` },                                [200, 200, 404, 404, 404, 404, 401]],
  ['GET shared', { method: 'GET', path: (t) => `/api/templates/${t.shared}` },                                    [200, 200, 200, 200, 404, 404, 401]],
  ['GET system', { method: 'GET', path: (t) => `/api/templates/${t.system}` },                                    [200, 200, 200, 200, 404, 200, 401]],
  ['PATCH personal', { method: 'PATCH', path: (t) => `/api/templates/${t.personal}`, body: { name: 'Renamed' } }, [200, 200, 404, 404, 404, 404, 401]],
  ['PATCH shared', { method: 'PATCH', path: (t) => `/api/templates/${t.shared}`, body: { name: 'Renamed' } },     [200, 200, 403, 200, 404, 404, 401]],
  ['PATCH system', { method: 'PATCH', path: (t) => `/api/templates/${t.system}`, body: { name: 'Renamed' } },     [200, 403, 403, 403, 404, 403, 401]],
  ['PATCH personal to system', { method: 'PATCH', path: (t) => `/api/templates/${t.personal}`, body: { visibility: 'system' } },
                                                                                                                 [200, 403, 404, 404, 404, 404, 401]],
  ['DELETE personal', { method: 'DELETE', path: (t) => `/api/templates/${t.personal}` },                          [204, 204, 404, 404, 404, 404, 401]],
  ['DELETE shared', { method: 'DELETE', path: (t) => `/api/templates/${t.shared}` },                              [204, 204, 403, 204, 404, 404, 401]],
  ['DELETE system', { method: 'DELETE', path: (t) => `/api/templates/${t.system}` },                              [204, 403, 403, 403, 404, 403, 401]],
  ['duplicate personal', { method: 'POST', path: (t) => `/api/templates/${t.personal}/duplicate` },               [201, 201, 404, 404, 404, 404, 401]],
  ['duplicate shared', { method: 'POST', path: (t) => `/api/templates/${t.shared}/duplicate` },                   [201, 201, 201, 201, 404, 404, 401]],
  ['duplicate system', { method: 'POST', path: (t) => `/api/templates/${t.system}/duplicate` },                   [201, 201, 201, 201, 404, 201, 401]],
  ["save the owner's assistant", { method: 'POST', path: (t) => `/api/assistants/${t.assistant}/save-as-template`, body: {} },
                                                                                                                 [201, 201, 404, 201, 403, 404, 401]],
  ["save the owner's shared rubric", { method: 'POST', path: (t) => `/api/rubrics/${t.sharedRubric}/save-as-template`, body: {} },
                                                                                                                 [201, 201, 201, 201, 403, 404, 401]],
  ["save the owner's private rubric", { method: 'POST', path: (t) => `/api/rubrics/${t.privateRubric}/save-as-template`, body: {} },
                                                                                                                 [201, 201, 404, 201, 403, 404, 401]],
];

describe.each(TEST_DIALECTS)('the template access matrix on %s', (dialect) => {
  let server: TestServer;
  const tokens = new Map<Role, string | undefined>();

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const systemAdmin = await loginAsAdmin(server);
    tokens.set('system admin', systemAdmin);
    tokens.set('anonymous', undefined);
    const organizationA = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id as number;
    const organizationB = await insertOrganization(server.store.db, 'organization-b', 'Organization B');
    const people: Array<[Role, 'creator' | 'admin' | 'learner', number]> = [
      ['owner', 'creator', organizationA],
      ['A creator', 'creator', organizationA],
      ['A admin', 'admin', organizationA],
      ['A learner', 'learner', organizationA],
      ['B creator', 'creator', organizationB],
    ];
    for (const [role, kind, organizationId] of people) {
      const user = await createUser(server, systemAdmin, {
        email: `templates-${role.replace(' ', '-')}@merino.test`.toLowerCase(),
        role: kind,
        organization_id: organizationId,
      });
      tokens.set(role, user.token);
    }
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  async function made(role: Role, path: string, body: unknown): Promise<Record<string, any>> {
    const response = await request(server, 'POST', path, { token: tokens.get(role), body });
    expect(response.status, `${path}: ${response.text}`).toBe(201);
    return response.body;
  }

  async function freshTarget(): Promise<Target> {
    const [personal, shared, system, assistant, sharedRubric, privateRubric] = await Promise.all([
      made('owner', '/api/templates', PROMPT),
      made('owner', '/api/templates', { ...PROMPT, visibility: 'organization' }),
      made('system admin', '/api/templates', { ...PROMPT, visibility: 'system' }),
      made('owner', '/api/assistants', {
        name: 'Tutor',
        system_prompt: 'Be kind.',
        metadata: { connector: 'bypass', llm: 'simple-bypass' },
      }),
      made('owner', '/api/rubrics', { ...RUBRIC_CONTENT, visibility: 'organization' }),
      made('owner', '/api/rubrics', RUBRIC_CONTENT),
    ]);
    return {
      personal: personal.id,
      shared: shared.id,
      system: system.id,
      assistant: assistant.id,
      sharedRubric: sharedRubric.rubricId,
      privateRubric: privateRubric.rubricId,
    };
  }

  it('gives every role exactly the status the policy says, on every endpoint', async () => {
    const violations: string[] = [];
    for (const [label, cell, statuses] of MATRIX) {
      for (const [index, role] of ROLES.entries()) {
        const target = await freshTarget();
        const response = await request(server, cell.method, cell.path(target), { token: tokens.get(role), body: cell.body });
        if (response.status !== statuses[index]) {
          violations.push(`${label} as ${role}: expected ${statuses[index]}, got ${response.status} ${response.text.slice(0, 160)}`);
        }
      }
    }
    expect(violations).toEqual([]);
  }, 240_000);

  it("lists only what each role may read: never another's personal template nor another organization's shared one", async () => {
    const target = await freshTarget();
    const expectations: Array<[Role, { personal: boolean; shared: boolean; system: boolean }]> = [
      ['owner', { personal: true, shared: true, system: true }],
      ['A creator', { personal: false, shared: true, system: true }],
      ['A admin', { personal: false, shared: true, system: true }],
      ['B creator', { personal: false, shared: false, system: true }],
    ];
    for (const [role, expected] of expectations) {
      const listed = await request(server, 'GET', '/api/templates?limit=200', { token: tokens.get(role) });
      expect(listed.status, listed.text).toBe(200);
      const ids = new Set((listed.body.items as Array<{ id: number }>).map((item) => item.id));
      expect({ personal: ids.has(target.personal), shared: ids.has(target.shared), system: ids.has(target.system) }, role).toEqual(
        expected,
      );
      const personalOfOthers = (listed.body.items as Array<{ visibility: string; is_mine: boolean }>).filter(
        (item) => item.visibility === 'personal' && !item.is_mine,
      );
      expect(personalOfOthers, role).toEqual([]);
    }
  });
});
