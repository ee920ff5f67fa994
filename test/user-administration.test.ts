// Proves user administration over real HTTP on both stores: who may create, list, read and change users in which organization, the lock-out guards, session revocation on password change, and an audit log free of secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createUser,
  login,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type TestServer,
} from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import type { UserView } from '../src/auth/user-schemas.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { expectErrorBody } from './support/error-envelope.js';

describe.each(TEST_DIALECTS)('user administration on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let adminId: number;
  let organizationA: number;
  let organizationB: number;
  let orgAdminB: CreatedUser;
  let creatorB: CreatedUser;
  let learnerB: CreatedUser;
  let creatorA: CreatedUser;
  let learnerA: CreatedUser;
  /** Every password and bearer credential this suite handles, for the audit-log check. */
  const secrets: string[] = [ADMIN_PASSWORD];

  function remember(user: CreatedUser): CreatedUser {
    secrets.push(user.password, user.token);
    return user;
  }

  async function usersInDatabase(organizationId?: number): Promise<number[]> {
    let query = server.store.db.selectFrom('users').select('id').orderBy('id');
    if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId);
    return (await query.execute()).map((row) => row.id);
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    secrets.push(adminToken);
    const me = await request(server, 'GET', '/api/me', { token: adminToken });
    adminId = me.body.id;
    organizationA = me.body.organization_id;
    organizationB = await insertOrganization(server.store.db, 'org-b', 'Organization B');
    orgAdminB = remember(
      await createUser(server, adminToken, { email: 'admin-b@merino.test', role: 'admin', organization_id: organizationB }),
    );
    creatorB = remember(
      await createUser(server, adminToken, { email: 'creator-b@merino.test', role: 'creator', organization_id: organizationB }),
    );
    learnerB = remember(
      await createUser(server, adminToken, { email: 'learner-b@merino.test', role: 'learner', organization_id: organizationB }),
    );
    creatorA = remember(await createUser(server, adminToken, { email: 'creator-a@merino.test', role: 'creator' }));
    learnerA = remember(await createUser(server, adminToken, { email: 'learner-a@merino.test', role: 'learner' }));
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('creating users as a system admin', () => {
    it.each(['admin', 'creator', 'learner'] as const)('creates a %s with 201 and stores the email lower-cased', async (role) => {
      const password = `${role}-created-password`;
      secrets.push(password);
      const response = await request(server, 'POST', '/api/users', {
        token: adminToken,
        body: { email: `New.${role.toUpperCase()}@Example.TEST`, password, role, name: `  New ${role}  `, organization_id: organizationB },
      });
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({
        email: `new.${role}@example.test`,
        name: `New ${role}`,
        role,
        organization_id: organizationB,
        is_system_admin: false,
        disabled: false,
      });
      expect(response.text).not.toContain(password);
      expect(response.text).not.toContain('password');
      const row = await server.store.db.selectFrom('users').select('email').where('id', '=', response.body.id).executeTakeFirstOrThrow();
      expect(row.email).toBe(`new.${role}@example.test`);
      const token = await login(server, `new.${role}@example.test`, password);
      secrets.push(token);
      expect((await request(server, 'GET', '/api/me', { token })).body).toMatchObject({ role, organization_id: organizationB });
    });

    it('puts a user in the creator’s own organization when organization_id is left out', async () => {
      const response = await request(server, 'POST', '/api/users', {
        token: adminToken,
        body: { email: 'default-org@merino.test', password: 'default-org-password', role: 'learner' },
      });
      secrets.push('default-org-password');
      expect(response.status, response.text).toBe(201);
      expect(response.body.organization_id).toBe(organizationA);
    });

    it('refuses a duplicate email, in any letter case, with 409 email_taken', async () => {
      for (const email of ['creator-a@merino.test', 'CREATOR-A@Merino.Test']) {
        const response = await request(server, 'POST', '/api/users', {
          token: adminToken,
          body: { email, password: 'another-password', role: 'learner' },
        });
        expectErrorBody(response, 409, 'email_taken', 'email');
      }
      expect((await server.store.db.selectFrom('users').select('id').where('email', '=', 'creator-a@merino.test').execute()).length).toBe(
        1,
      );
    });

    it('refuses a password shorter than PASSWORD_MIN_LENGTH with 400 weak_password naming password', async () => {
      const response = await request(server, 'POST', '/api/users', {
        token: adminToken,
        body: { email: 'weak@merino.test', password: 'short77', role: 'learner' },
      });
      expectErrorBody(response, 400, 'weak_password', 'password');
      expect(response.text).not.toContain('short77');
      expect(
        await server.store.db.selectFrom('users').select('id').where('email', '=', 'weak@merino.test').executeTakeFirst(),
      ).toBeUndefined();
    });

    it('refuses an organization_id that does not exist with 400', async () => {
      const response = await request(server, 'POST', '/api/users', {
        token: adminToken,
        body: { email: 'orphan@merino.test', password: 'orphan-password', role: 'learner', organization_id: 987_654 },
      });
      expectErrorBody(response, 400, 'unknown_organization', 'organization_id');
      expect(
        await server.store.db.selectFrom('users').select('id').where('email', '=', 'orphan@merino.test').executeTakeFirst(),
      ).toBeUndefined();
    });

    it('refuses an unknown role with 400', async () => {
      const response = await request(server, 'POST', '/api/users', {
        token: adminToken,
        body: { email: 'owner@merino.test', password: 'owner-password', role: 'owner' },
      });
      expectErrorBody(response, 400, 'invalid_body', 'role');
    });
  });

  describe('listing users', () => {
    it('answers {items, total} with every user for a system admin, without password hashes', async () => {
      const response = await request(server, 'GET', '/api/users?limit=200', { token: adminToken });
      expect(response.status, response.text).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['items', 'total']);
      const allIds = await usersInDatabase();
      expect(response.body.total).toBe(allIds.length);
      expect((response.body.items as UserView[]).map((user) => user.id)).toEqual(allIds);
      expect(response.text).not.toContain('password');
      expect(response.text).not.toContain('scrypt');
    });

    it('filters by q over email and name, case-insensitively', async () => {
      const response = await request(server, 'GET', '/api/users?q=LEARNER-B', { token: adminToken });
      expect(response.status, response.text).toBe(200);
      const emails = (response.body.items as UserView[]).map((user) => user.email);
      expect(emails).toEqual(['learner-b@merino.test']);
      expect(response.body.total).toBe(1);

      const broad = await request(server, 'GET', '/api/users?q=-b%40merino', { token: adminToken });
      expect((broad.body.items as UserView[]).map((user) => user.email).sort()).toEqual([
        'admin-b@merino.test',
        'creator-b@merino.test',
        'learner-b@merino.test',
      ]);
      expect(broad.body.total).toBe(3);

      const none = await request(server, 'GET', '/api/users?q=no-such-user-anywhere', { token: adminToken });
      expect(none.body).toEqual({ items: [], total: 0 });
    });

    it('pages with limit and offset: pages are disjoint, in id order, and together hold every user', async () => {
      const allIds = await usersInDatabase();
      expect(allIds.length).toBeGreaterThan(4);
      const seen: number[] = [];
      for (let offset = 0; offset < allIds.length + 2; offset += 2) {
        const page = await request(server, 'GET', `/api/users?limit=2&offset=${offset}`, { token: adminToken });
        expect(page.status, page.text).toBe(200);
        expect(page.body.total).toBe(allIds.length);
        expect(page.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...(page.body.items as UserView[]).map((user) => user.id));
      }
      expect(seen).toEqual(allIds);
    });
  });

  describe('an organization admin', () => {
    it('lists only the users of their own organization', async () => {
      const response = await request(server, 'GET', '/api/users?limit=200', { token: orgAdminB.token });
      expect(response.status, response.text).toBe(200);
      const idsInB = await usersInDatabase(organizationB);
      expect((response.body.items as UserView[]).map((user) => user.id)).toEqual(idsInB);
      expect(response.body.total).toBe(idsInB.length);
      expect((response.body.items as UserView[]).every((user) => user.organization_id === organizationB)).toBe(true);
      expect(response.text).not.toContain(ADMIN_EMAIL);
      expect(response.text).not.toContain(creatorA.email);
    });

    it('creates users in their own organization, by default and when named', async () => {
      secrets.push('made-by-org-admin-password');
      const byDefault = await request(server, 'POST', '/api/users', {
        token: orgAdminB.token,
        body: { email: 'made-by-b@merino.test', password: 'made-by-org-admin-password', role: 'learner' },
      });
      expect(byDefault.status, byDefault.text).toBe(201);
      expect(byDefault.body.organization_id).toBe(organizationB);

      const named = await request(server, 'POST', '/api/users', {
        token: orgAdminB.token,
        body: { email: 'named-by-b@merino.test', password: 'made-by-org-admin-password', role: 'creator', organization_id: organizationB },
      });
      expect(named.status, named.text).toBe(201);
      expect(named.body.organization_id).toBe(organizationB);
    });

    it('cannot create users in another organization (403)', async () => {
      const response = await request(server, 'POST', '/api/users', {
        token: orgAdminB.token,
        body: { email: 'sneaky@merino.test', password: 'sneaky-password', role: 'learner', organization_id: organizationA },
      });
      expectErrorBody(response, 403, 'forbidden');
      expect(
        await server.store.db.selectFrom('users').select('id').where('email', '=', 'sneaky@merino.test').executeTakeFirst(),
      ).toBeUndefined();
    });

    it('cannot create system admins (403), even in their own organization', async () => {
      for (const body of [
        { email: 'root-b@merino.test', password: 'root-b-password', role: 'admin', is_system_admin: true },
        { email: 'root-b@merino.test', password: 'root-b-password', role: 'admin', is_system_admin: true, organization_id: organizationB },
      ]) {
        expectErrorBody(await request(server, 'POST', '/api/users', { token: orgAdminB.token, body }), 403, 'forbidden');
      }
      expect(
        await server.store.db.selectFrom('users').select('id').where('email', '=', 'root-b@merino.test').executeTakeFirst(),
      ).toBeUndefined();
    });

    it('changes the role of a user in their organization', async () => {
      const promoted = await request(server, 'PATCH', `/api/users/${learnerB.id}`, { token: orgAdminB.token, body: { role: 'creator' } });
      expect(promoted.status, promoted.text).toBe(200);
      expect(promoted.body.role).toBe('creator');
      expect((await request(server, 'GET', `/api/users/${learnerB.id}`, { token: orgAdminB.token })).body.role).toBe('creator');

      const restored = await request(server, 'PATCH', `/api/users/${learnerB.id}`, { token: orgAdminB.token, body: { role: 'learner' } });
      expect(restored.body.role).toBe('learner');
    });

    it('cannot grant system administration (403)', async () => {
      expectErrorBody(
        await request(server, 'PATCH', `/api/users/${creatorB.id}`, { token: orgAdminB.token, body: { is_system_admin: true } }),
        403,
        'forbidden',
      );
      const row = await server.store.db
        .selectFrom('users')
        .select('is_system_admin')
        .where('id', '=', creatorB.id)
        .executeTakeFirstOrThrow();
      expect(row.is_system_admin).toBe(0);
    });

    it('gets 404 reading or changing a user of another organization or a system admin', async () => {
      for (const id of [creatorA.id, learnerA.id, adminId]) {
        expectErrorBody(await request(server, 'GET', `/api/users/${id}`, { token: orgAdminB.token }), 404, 'not_found');
        expectErrorBody(
          await request(server, 'PATCH', `/api/users/${id}`, { token: orgAdminB.token, body: { role: 'learner' } }),
          404,
          'not_found',
        );
      }
      expect((await request(server, 'GET', `/api/users/${creatorA.id}`, { token: adminToken })).body.role).toBe('creator');
    });

    it('reads a user of their own organization', async () => {
      const response = await request(server, 'GET', `/api/users/${creatorB.id}`, { token: orgAdminB.token });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: creatorB.id, email: creatorB.email, organization_id: organizationB });
    });
  });

  describe('creators and learners', () => {
    it('get 403 listing users', async () => {
      for (const user of [creatorA, learnerA, creatorB, learnerB]) {
        expectErrorBody(await request(server, 'GET', '/api/users', { token: user.token }), 403, 'forbidden');
      }
    });

    it('get 403 creating users, even in their own organization', async () => {
      for (const user of [creatorA, learnerA, creatorB, learnerB]) {
        const response = await request(server, 'POST', '/api/users', {
          token: user.token,
          body: { email: `made-by-${user.id}@merino.test`, password: 'made-by-a-member', role: 'learner' },
        });
        expectErrorBody(response, 403, 'forbidden');
      }
      expect(
        await server.store.db
          .selectFrom('users')
          .select('id')
          .where('email', 'like', 'made-by-%@merino.test')
          .where('email', '!=', 'made-by-b@merino.test')
          .execute(),
      ).toEqual([]);
    });

    it('get 404 reading another user and cannot change their own role', async () => {
      expectErrorBody(await request(server, 'GET', `/api/users/${creatorA.id}`, { token: learnerA.token }), 404, 'not_found');
      expectErrorBody(
        await request(server, 'PATCH', `/api/users/${learnerA.id}`, { token: learnerA.token, body: { role: 'admin' } }),
        403,
        'forbidden',
      );
      expect((await request(server, 'GET', '/api/me', { token: learnerA.token })).body.role).toBe('learner');
    });
  });

  describe('changing users as a system admin', () => {
    it('changes the role, which the user then sees in /api/me', async () => {
      const response = await request(server, 'PATCH', `/api/users/${learnerA.id}`, { token: adminToken, body: { role: 'creator' } });
      expect(response.status, response.text).toBe(200);
      expect(response.body.role).toBe('creator');
      expect((await request(server, 'GET', '/api/me', { token: learnerA.token })).body.role).toBe('creator');
      expect(
        (await request(server, 'PATCH', `/api/users/${learnerA.id}`, { token: adminToken, body: { role: 'learner' } })).body.role,
      ).toBe('learner');
    });

    it('disables and re-enables a user', async () => {
      const disabled = await request(server, 'PATCH', `/api/users/${creatorB.id}`, { token: adminToken, body: { disabled: true } });
      expect(disabled.status, disabled.text).toBe(200);
      expect(disabled.body.disabled).toBe(true);
      expectErrorBody(
        await request(server, 'POST', '/api/auth/login', { body: { email: creatorB.email, password: creatorB.password } }),
        403,
        'account_disabled',
      );

      const enabled = await request(server, 'PATCH', `/api/users/${creatorB.id}`, { token: adminToken, body: { disabled: false } });
      expect(enabled.body.disabled).toBe(false);
      creatorB.token = await login(server, creatorB.email, creatorB.password);
      secrets.push(creatorB.token);
    });

    it('refuses an empty change with 400', async () => {
      expectErrorBody(await request(server, 'PATCH', `/api/users/${creatorA.id}`, { token: adminToken, body: {} }), 400, 'invalid_body');
    });

    it('gets 404 for a user id that does not exist', async () => {
      expectErrorBody(await request(server, 'GET', '/api/users/987654', { token: adminToken }), 404, 'not_found');
      expectErrorBody(
        await request(server, 'PATCH', '/api/users/987654', { token: adminToken, body: { role: 'learner' } }),
        404,
        'not_found',
      );
    });
  });

  describe('lock-out guards', () => {
    it('a user cannot disable themselves (403), neither an organization admin nor a system admin', async () => {
      expectErrorBody(
        await request(server, 'PATCH', `/api/users/${orgAdminB.id}`, { token: orgAdminB.token, body: { disabled: true } }),
        403,
        'forbidden',
      );
      expectErrorBody(
        await request(server, 'PATCH', `/api/users/${adminId}`, { token: adminToken, body: { disabled: true } }),
        403,
        'forbidden',
      );
      expect((await request(server, 'GET', '/api/me', { token: orgAdminB.token })).status).toBe(200);
      expect((await request(server, 'GET', '/api/me', { token: adminToken })).status).toBe(200);
    });

    it('an organization admin cannot remove their own admin role (403)', async () => {
      expectErrorBody(
        await request(server, 'PATCH', `/api/users/${orgAdminB.id}`, { token: orgAdminB.token, body: { role: 'learner' } }),
        403,
        'forbidden',
      );
      expect((await request(server, 'GET', '/api/me', { token: orgAdminB.token })).body.role).toBe('admin');
    });

    it('the last active system admin cannot be disabled (403); while another is active, one may be disabled', async () => {
      const secondPassword = 'second-system-admin-password';
      secrets.push(secondPassword);
      const second = await request(server, 'POST', '/api/users', {
        token: adminToken,
        body: { email: 'root-two@merino.test', password: secondPassword, role: 'admin', is_system_admin: true },
      });
      expect(second.status, second.text).toBe(201);
      expect(second.body.is_system_admin).toBe(true);

      const disableSecond = await request(server, 'PATCH', `/api/users/${second.body.id}`, { token: adminToken, body: { disabled: true } });
      expect(disableSecond.status, disableSecond.text).toBe(200);

      expectErrorBody(
        await request(server, 'PATCH', `/api/users/${adminId}`, { token: adminToken, body: { disabled: true } }),
        403,
        'forbidden',
      );
      const active = await server.store.db
        .selectFrom('users')
        .select('id')
        .where('is_system_admin', '=', 1)
        .where('disabled', '=', 0)
        .execute();
      expect(active.map((row) => row.id)).toEqual([adminId]);

      const enableSecond = await request(server, 'PATCH', `/api/users/${second.body.id}`, { token: adminToken, body: { disabled: false } });
      expect(enableSecond.body.disabled).toBe(false);
    });
  });

  describe('changing a password', () => {
    it('revokes every session of that user; the new password works and the old one does not', async () => {
      const user = remember(await createUser(server, adminToken, { email: 'rotating@merino.test', role: 'learner' }));
      const secondSession = await login(server, user.email, user.password);
      secrets.push(secondSession);
      expect((await request(server, 'GET', '/api/me', { token: user.token })).status).toBe(200);

      const newPassword = 'a-brand-new-password';
      secrets.push(newPassword);
      const change = await request(server, 'PATCH', `/api/users/${user.id}`, { token: adminToken, body: { password: newPassword } });
      expect(change.status, change.text).toBe(200);
      expect(change.text).not.toContain(newPassword);

      expectErrorBody(await request(server, 'GET', '/api/me', { token: user.token }), 401, 'invalid_token');
      expectErrorBody(await request(server, 'GET', '/api/me', { token: secondSession }), 401, 'invalid_token');
      expectErrorBody(
        await request(server, 'POST', '/api/auth/login', { body: { email: user.email, password: user.password } }),
        401,
        'invalid_credentials',
      );
      const fresh = await login(server, user.email, newPassword);
      secrets.push(fresh);
      expect((await request(server, 'GET', '/api/me', { token: fresh })).status).toBe(200);
    });

    it('refuses a new password shorter than PASSWORD_MIN_LENGTH with 400 weak_password and keeps sessions', async () => {
      expectErrorBody(
        await request(server, 'PATCH', `/api/users/${learnerB.id}`, { token: adminToken, body: { password: 'tiny' } }),
        400,
        'weak_password',
        'password',
      );
      expect((await request(server, 'GET', '/api/me', { token: learnerB.token })).status).toBe(200);
    });
  });

  describe('the audit log', () => {
    it('records user.create, user.update, auth.login, auth.login_failed, api_key.create and api_key.delete without any password or token in details', async () => {
      const failed = await request(server, 'POST', '/api/auth/login', {
        body: { email: creatorA.email, password: 'definitely-wrong-password' },
      });
      expect(failed.status).toBe(401);
      secrets.push('definitely-wrong-password');
      const key = await request(server, 'POST', '/api/api-keys', { token: creatorA.token, body: { name: 'audited key' } });
      expect(key.status, key.text).toBe(201);
      secrets.push(key.body.key);
      expect((await request(server, 'DELETE', `/api/api-keys/${key.body.id}`, { token: creatorA.token })).status).toBe(204);

      const entries = await server.store.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
      const actions = new Set(entries.map((entry) => entry.action));
      for (const action of ['user.create', 'user.update', 'auth.login', 'auth.login_failed', 'api_key.create', 'api_key.delete']) {
        expect(actions, `audit action ${action}`).toContain(action);
      }

      const creation = entries.find((entry) => entry.action === 'user.create' && entry.target_id === String(creatorA.id));
      expect(creation).toMatchObject({ actor_user_id: adminId, target_type: 'user' });
      const failure = entries.filter((entry) => entry.action === 'auth.login_failed' && entry.target_id === String(creatorA.id));
      expect(failure.length).toBeGreaterThanOrEqual(1);
      const keyCreation = entries.find((entry) => entry.action === 'api_key.create' && entry.target_id === String(key.body.id));
      expect(keyCreation).toMatchObject({ actor_user_id: creatorA.id, target_type: 'api_key' });
      expect(entries.find((entry) => entry.action === 'api_key.delete' && entry.target_id === String(key.body.id))).toBeDefined();

      const uniqueSecrets = [...new Set(secrets)];
      expect(uniqueSecrets.length).toBeGreaterThan(20);
      for (const entry of entries) {
        const details: unknown = JSON.parse(entry.details);
        expect(details).toBeTypeOf('object');
        const rowText = JSON.stringify(entry);
        for (const secret of uniqueSecrets) {
          expect(rowText.includes(secret), `audit entry ${entry.id} (${entry.action}) contains a secret`).toBe(false);
        }
        expect(rowText).not.toMatch(/mr[sk]_[A-Za-z0-9_-]{20,}/);
        expect(rowText).not.toContain('scrypt$');
      }
    });
  });
});
