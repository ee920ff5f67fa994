/**
 * Organizations over real HTTP, on both stores: who may create, list, read, change and delete
 * them, and manage which organization's people (an access matrix over every new or changed
 * endpoint); hostile input; 50 concurrent creates of one slug; a suspended organization's members
 * refused at login, on their sessions and API keys; the one-time password flow; moving a user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, login, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { expectStatusesByRole, organizationRoles, type OrganizationRole } from './support/two-organizations.js';

describe.each(TEST_DIALECTS)('organizations on %s', (dialect) => {
  let server: TestServer;
  let organizationA: number;
  let organizationB: number;
  let tokens: Map<OrganizationRole, string | undefined>;
  let learnerOfB: number;
  let learnerOfA: number;
  let counter = 0;

  const as = (role: OrganizationRole, method: string, path: string, body?: unknown) =>
    request(server, method, path, { token: tokens.get(role), ...(body !== undefined && { body }) });
  const unique = (stem: string) => `${stem}-${dialect}-${++counter}`;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    const roles = await organizationRoles(server, adminToken);
    ({ organizationA, organizationB, tokens } = roles);
    learnerOfA = roles.people['learner of A'].id;
    const learner = { email: 'learner-b@merino.test', role: 'learner', organization_id: organizationB } as const;
    learnerOfB = (await createUser(server, adminToken, learner)).id;
  });

  afterAll(async () => {
    await server.close();
  });

  it('lets only system admins create and list organizations', async () => {
    await expectStatusesByRole(
      (role) => as(role, 'POST', '/api/organizations', { name: 'X', slug: unique('matrix') }),
      [201, 403, 403, 403, 403, 401],
    );
    await expectStatusesByRole((role) => as(role, 'GET', '/api/organizations'), [200, 403, 403, 403, 403, 401]);
  });

  it('shows an organization to system admins and its own admins only, and lets only system admins change or delete it', async () => {
    await expectStatusesByRole((role) => as(role, 'GET', `/api/organizations/${organizationB}`), [200, 404, 200, 404, 404, 401]);
    await expectStatusesByRole((role) => as(role, 'GET', `/api/organizations/${organizationA}`), [200, 200, 404, 403, 403, 401]);
    await expectStatusesByRole(
      (role) => as(role, 'PATCH', `/api/organizations/${organizationB}`, { name: 'Faculty B' }),
      [200, 404, 403, 404, 404, 401],
    );
    await expectStatusesByRole((role) => as(role, 'DELETE', `/api/organizations/${organizationB}`), [409, 404, 403, 404, 404, 401]);
  });

  it("never lets an organization admin see or change another organization's people", async () => {
    await expectStatusesByRole(
      (role) =>
        as(role, 'POST', '/api/users', {
          email: `${unique('new')}@merino.test`,
          password: 'long-enough-password',
          role: 'learner',
          organization_id: organizationB,
        }),
      [201, 403, 201, 403, 403, 401],
    );
    await expectStatusesByRole((role) => as(role, 'GET', `/api/users/${learnerOfB}`), [200, 404, 200, 404, 404, 401]);
    await expectStatusesByRole(
      (role) => as(role, 'PATCH', `/api/users/${learnerOfB}`, { role: 'learner' }),
      [200, 404, 200, 404, 404, 401],
    );
    await expectStatusesByRole(
      (role) => as(role, 'PATCH', `/api/users/${learnerOfB}`, { disabled: false }),
      [200, 404, 200, 404, 404, 401],
    );
    await expectStatusesByRole((role) => as(role, 'POST', `/api/users/${learnerOfB}/password-reset`), [200, 404, 200, 404, 404, 401]);
    await expectStatusesByRole(
      (role) => as(role, 'PATCH', `/api/users/${learnerOfA}`, { organization_id: organizationA }),
      // The learner asks about their own account, so they learn it exists: 403.
      [200, 403, 404, 404, 403, 401],
    );
    const listedByA = await as('admin of A', 'GET', '/api/users?limit=200');
    expect(listedByA.status).toBe(200);
    expect(listedByA.body.items.map((user: { organization_id: number }) => user.organization_id)).not.toContain(organizationB);
    // An organization admin creates people only in their own organization, by default there.
    const own = await as('admin of A', 'POST', '/api/users', {
      email: `${unique('own')}@merino.test`,
      password: 'long-enough-password',
      role: 'creator',
    });
    expect(own.status, own.text).toBe(201);
    expect(own.body.organization_id).toBe(organizationA);
  });

  it('refuses hostile input with a 4xx naming the field', async () => {
    for (const slug of ['Bad Slug', '-starts', 'ends-', 'two--hyphens', 'x', 'é', 'a'.repeat(64)]) {
      const response = await as('system admin', 'POST', '/api/organizations', { name: 'Bad', slug });
      expect(response.status, slug).toBe(400);
      expect(response.text).toContain('slug');
    }
    const huge = await as('system admin', 'POST', '/api/organizations', { name: 'n'.repeat(201), slug: unique('huge') });
    expect(huge.status).toBe(400);
    expect(huge.text).toContain('name');
    const badStatus = await as('system admin', 'PATCH', `/api/organizations/${organizationB}`, { status: 'frozen' });
    expect(badStatus.status).toBe(400);
    expect(badStatus.text).toContain('status');
    expect((await as('system admin', 'GET', '/api/organizations/999999')).status).toBe(404);
    expect((await as('system admin', 'PATCH', '/api/organizations/999999', { name: 'x' })).status).toBe(404);
    const unknownForNewUser = await as('system admin', 'POST', '/api/users', {
      email: `${unique('lost')}@merino.test`,
      password: 'long-enough-password',
      role: 'learner',
      organization_id: 999999,
    });
    expect(unknownForNewUser.status).toBe(400);
    expect(unknownForNewUser.body.error).toMatchObject({ code: 'unknown_organization', param: 'organization_id' });
    const unknownForMove = await as('system admin', 'PATCH', `/api/users/${learnerOfA}`, { organization_id: 999999 });
    expect(unknownForMove.status).toBe(400);
    expect(unknownForMove.body.error).toMatchObject({ code: 'unknown_organization', param: 'organization_id' });
    const system = await as('system admin', 'PATCH', `/api/organizations/${organizationA}`, { status: 'suspended' });
    expect(system.status).toBe(403);
  });

  it('gives exactly one 201 for 50 concurrent creates of the same slug', async () => {
    const slug = unique('race');
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => as('system admin', 'POST', '/api/organizations', { name: 'Race', slug })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(
      refused.every((answer) => answer.status === 409 && answer.body.error.code === 'slug_taken' && answer.body.error.param === 'slug'),
    ).toBe(true);
  });

  it("refuses a suspended organization's members at login, on sessions and on API keys, but not system admins", async () => {
    const organization = (await as('system admin', 'POST', '/api/organizations', { name: 'Suspended', slug: unique('suspended') })).body.id;
    const member = await createUser(server, tokens.get('system admin')!, {
      email: `${unique('member')}@merino.test`,
      role: 'creator',
      organization_id: organization,
    });
    const key = (await request(server, 'POST', '/api/api-keys', { token: member.token, body: { name: 'k' } })).body.key as string;
    const operator = await createUser(server, tokens.get('system admin')!, {
      email: `${unique('operator')}@merino.test`,
      role: 'admin',
      organization_id: organization,
    });
    await request(server, 'PATCH', `/api/users/${operator.id}`, { token: tokens.get('system admin'), body: { is_system_admin: true } });

    const suspended = await as('system admin', 'PATCH', `/api/organizations/${organization}`, { status: 'suspended' });
    expect(suspended.status, suspended.text).toBe(200);
    expect(suspended.body.status).toBe('suspended');

    const rightPassword = await request(server, 'POST', '/api/auth/login', { body: { email: member.email, password: member.password } });
    expect(rightPassword.status).toBe(403);
    expect(rightPassword.body.error.code).toBe('organization_suspended');
    // Without the password nobody learns the organization is suspended.
    const wrongPassword = await request(server, 'POST', '/api/auth/login', { body: { email: member.email, password: 'not-the-password' } });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body.error.code).toBe('invalid_credentials');
    for (const token of [member.token, key]) {
      for (const path of ['/api/me', '/api/assistants', '/v1/models']) {
        const refused = await request(server, 'GET', path, { token });
        expect(refused.status, path).toBe(403);
        expect(refused.body.error.code).toBe('organization_suspended');
      }
      const chat = await request(server, 'POST', '/v1/chat/completions', {
        token,
        body: { model: 'x', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(chat.status).toBe(403);
      expect(chat.body.error.code).toBe('organization_suspended');
    }
    expect((await request(server, 'GET', '/api/me', { token: await login(server, operator.email, operator.password) })).status).toBe(200);

    expect((await as('system admin', 'PATCH', `/api/organizations/${organization}`, { status: 'active' })).status).toBe(200);
    expect((await request(server, 'GET', '/api/me', { token: key })).status).toBe(200);
    expect((await request(server, 'GET', '/api/me', { token: member.token })).status).toBe(200);
  });

  it('makes whoever holds a one-time password choose a new one before anything else', async () => {
    const person = await createUser(server, tokens.get('admin of A')!, { email: `${unique('forgetful')}@merino.test`, role: 'learner' });
    const reset = await as('admin of A', 'POST', `/api/users/${person.id}/password-reset`);
    expect(reset.status, reset.text).toBe(200);
    const oneTimePassword = reset.body.one_time_password as string;
    expect(oneTimePassword.length).toBeGreaterThanOrEqual(20);
    expect(reset.body.user.must_change_credentials).toBe(true);
    expect((await request(server, 'GET', '/api/me', { token: person.token })).status).toBe(401);
    expect((await request(server, 'POST', '/api/auth/login', { body: { email: person.email, password: person.password } })).status).toBe(
      401,
    );

    const loggedIn = await request(server, 'POST', '/api/auth/login', { body: { email: person.email, password: oneTimePassword } });
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.body.user.must_change_credentials).toBe(true);
    const token = loggedIn.body.token as string;
    const blocked = await request(server, 'GET', '/api/assistants', { token });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('password_change_required');
    expect((await request(server, 'GET', '/api/me', { token })).status).toBe(200);
    const wrongCurrent = await request(server, 'POST', '/api/auth/password', {
      token,
      body: { current_password: 'wrong', new_password: 'a-new-long-password' },
    });
    expect(wrongCurrent.status).toBe(401);
    const tooShort = await request(server, 'POST', '/api/auth/password', {
      token,
      body: { current_password: oneTimePassword, new_password: 'x' },
    });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body.error.param).toBe('new_password');
    const changed = await request(server, 'POST', '/api/auth/password', {
      token,
      body: { current_password: oneTimePassword, new_password: 'a-new-long-password' },
    });
    expect(changed.status, changed.text).toBe(204);
    expect((await request(server, 'GET', '/api/assistants', { token })).status).toBe(200);
    const again = await request(server, 'POST', '/api/auth/login', { body: { email: person.email, password: 'a-new-long-password' } });
    expect(again.body.user.must_change_credentials).toBe(false);
    const audited = await listAuditEntries(server.store.db, { targetId: String(person.id) });
    expect(audited.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['user.create', 'user.password_reset', 'user.password_change']),
    );
  });

  it('moves a user with what they own, which stops reaching the old organization', async () => {
    const mover = await createUser(server, tokens.get('system admin')!, {
      email: `${unique('mover')}@merino.test`,
      role: 'creator',
      organization_id: organizationA,
    });
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: mover.token,
      body: { name: 'Moving', metadata: { connector: 'bypass', llm: 'simple-bypass' } },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const id = assistant.body.id as number;
    expect((await request(server, 'PUT', `/api/assistants/${id}/publish`, { token: mover.token, body: { published: true } })).status).toBe(
      200,
    );
    expect((await as('learner of A', 'GET', `/api/assistants/${id}`)).status).toBe(200);

    const moved = await as('system admin', 'PATCH', `/api/users/${mover.id}`, { organization_id: organizationB });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ organization_id: organizationB, role: 'creator' });
    expect((await as('learner of A', 'GET', `/api/assistants/${id}`)).status).toBe(404);
    expect((await as('admin of A', 'GET', `/api/assistants/${id}`)).status).toBe(404);
    const own = await request(server, 'GET', `/api/assistants/${id}`, { token: mover.token });
    expect(own.status).toBe(200);
    expect(own.body.published).toBe(false);
    expect((await as('admin of B', 'GET', `/api/users/${mover.id}`)).status).toBe(200);
    expect((await as('admin of A', 'GET', `/api/users/${mover.id}`)).status).toBe(404);
    const audited = await listAuditEntries(server.store.db, { action: 'user.move', targetId: String(mover.id) });
    expect(audited).toHaveLength(1);
  });

  it('deletes an empty organization and refuses one with people, naming what is left', async () => {
    const empty = (await as('system admin', 'POST', '/api/organizations', { name: 'Empty', slug: unique('empty') })).body.id;
    expect((await as('system admin', 'DELETE', `/api/organizations/${empty}`)).status).toBe(204);
    expect((await as('system admin', 'GET', `/api/organizations/${empty}`)).status).toBe(404);
    const full = await as('system admin', 'DELETE', `/api/organizations/${organizationB}`);
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe('organization_not_empty');
    expect(full.body.error.message).toMatch(/users/);
  });
});
