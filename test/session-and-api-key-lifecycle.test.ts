// Proves the life of credentials over real HTTP on both stores: login, session use, logout, expiry, disabling, API key creation, use and deletion, and the 401s for every malformed or missing Authorization header.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { possiblyUnset } from './support/possibly-unset.js';
import { expectErrorBody } from './support/error-envelope.js';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function randomTokenText(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

describe.each(TEST_DIALECTS)('sessions and API keys on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let dora: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    alice = await createUser(server, adminToken, { email: 'alice@merino.test', role: 'creator' });
    bob = await createUser(server, adminToken, { email: 'bob@merino.test', role: 'creator' });
    dora = await createUser(server, adminToken, { email: 'dora@merino.test', role: 'learner' });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('login', () => {
    it('answers with exactly token, token_type, expires_at and user, with an mrs_ session token', async () => {
      const before = Date.now();
      const response = await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(response.status, response.text).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['expires_at', 'token', 'token_type', 'user']);
      expect(response.body.token).toMatch(/^mrs_[A-Za-z0-9_-]{20,}$/);
      expect(response.body.token_type).toBe('Bearer');
      const expiresAt = Date.parse(response.body.expires_at);
      expect(Number.isNaN(expiresAt)).toBe(false);
      // The default session lifetime is 168 hours.
      expect(expiresAt).toBeGreaterThanOrEqual(before + 168 * 3_600_000 - 5_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 168 * 3_600_000 + 5_000);
      expect(response.body.user).toMatchObject({ email: ADMIN_EMAIL, is_system_admin: true, disabled: false, role: 'admin' });
    });

    it('never includes the password hash (or any password field) in the login answer', async () => {
      const response = await request(server, 'POST', '/api/auth/login', { body: { email: alice.email, password: alice.password } });
      expect(response.status).toBe(200);
      const stored = await server.store.db.selectFrom('users').select('password_hash').where('id', '=', alice.id).executeTakeFirstOrThrow();
      expect(stored.password_hash).toBeTruthy();
      expect(response.text).not.toContain(stored.password_hash!);
      expect(response.text).not.toContain('scrypt');
      expect(response.text).not.toContain('password');
      expect(response.text).not.toContain(alice.password);
    });

    it('gives the same 401 invalid_credentials body for a wrong password and for an unknown email', async () => {
      const wrongPassword = await request(server, 'POST', '/api/auth/login', {
        body: { email: alice.email, password: 'not-the-right-password' },
      });
      const unknownEmail = await request(server, 'POST', '/api/auth/login', {
        body: { email: 'nobody-here@merino.test', password: 'not-the-right-password' },
      });
      expectErrorBody(wrongPassword, 401, 'invalid_credentials');
      expectErrorBody(unknownEmail, 401, 'invalid_credentials');
      expect(wrongPassword.text).toBe(unknownEmail.text);
    });

    it('accepts the email in any letter case', async () => {
      const response = await request(server, 'POST', '/api/auth/login', { body: { email: 'ALICE@Merino.Test', password: alice.password } });
      expect(response.status, response.text).toBe(200);
      expect(response.body.user.email).toBe(alice.email);
    });
  });

  describe('a session token', () => {
    it('authenticates GET /api/me, which shows the user and credential "session"', async () => {
      const token = await login(server, alice.email, alice.password);
      const response = await request(server, 'GET', '/api/me', { token });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: alice.id, email: alice.email, role: 'creator', credential: 'session' });
      expect(response.text).not.toContain('password');
    });

    it('stops working after logout: logout answers 204 and the same token then gets 401 invalid_token', async () => {
      const token = await login(server, alice.email, alice.password);
      expect((await request(server, 'GET', '/api/me', { token })).status).toBe(200);

      const logout = await request(server, 'POST', '/api/auth/logout', { token });
      expect(logout.status, logout.text).toBe(204);
      expect(logout.text).toBe('');

      expectErrorBody(await request(server, 'GET', '/api/me', { token }), 401, 'invalid_token');
      expectErrorBody(await request(server, 'POST', '/api/auth/logout', { token }), 401, 'invalid_token');
    });

    it('logging out one session leaves the user’s other sessions working', async () => {
      const first = await login(server, alice.email, alice.password);
      const second = await login(server, alice.email, alice.password);
      expect((await request(server, 'POST', '/api/auth/logout', { token: first })).status).toBe(204);
      expect((await request(server, 'GET', '/api/me', { token: second })).status).toBe(200);
    });

    it('is refused with 401 invalid_token once its expires_at is in the past', async () => {
      const token = await login(server, alice.email, alice.password);
      expect((await request(server, 'GET', '/api/me', { token })).status).toBe(200);

      const result = await server.store.db
        .updateTable('sessions')
        .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
        .where('token_hash', '=', sha256(token))
        .executeTakeFirst();
      expect(Number(result.numUpdatedRows)).toBe(1);

      expectErrorBody(await request(server, 'GET', '/api/me', { token }), 401, 'invalid_token');
    });

    it('is stored only as a hash: the token text appears nowhere in the sessions table', async () => {
      const token = await login(server, bob.email, bob.password);
      const rows = await server.store.db.selectFrom('sessions').selectAll().execute();
      const tableText = JSON.stringify(rows);
      expect(tableText).not.toContain(token);
      expect(tableText).not.toContain(token.slice('mrs_'.length));
      const row = rows.find((candidate) => candidate.token_hash === sha256(token));
      expect(row, 'a session row keyed by the SHA-256 of the token').toBeDefined();
      expect(row!.user_id).toBe(bob.id);
    });
  });

  describe('a disabled user', () => {
    it('cannot log in (403 account_disabled), and their existing session token and API key stop working (401)', async () => {
      const sessionToken = await login(server, dora.email, dora.password);
      const created = await request(server, 'POST', '/api/api-keys', { token: sessionToken, body: { name: 'dora key' } });
      expect(created.status, created.text).toBe(201);
      const apiKey: string = created.body.key;
      expect((await request(server, 'GET', '/api/me', { token: apiKey })).status).toBe(200);

      const disable = await request(server, 'PATCH', `/api/users/${dora.id}`, { token: adminToken, body: { disabled: true } });
      expect(disable.status, disable.text).toBe(200);
      expect(disable.body.disabled).toBe(true);

      expectErrorBody(
        await request(server, 'POST', '/api/auth/login', { body: { email: dora.email, password: dora.password } }),
        403,
        'account_disabled',
      );
      expectErrorBody(await request(server, 'GET', '/api/me', { token: sessionToken }), 401, 'invalid_token');
      expectErrorBody(await request(server, 'GET', '/api/me', { token: apiKey }), 401, 'invalid_token');
      expectErrorBody(await request(server, 'GET', '/api/api-keys', { token: apiKey }), 401, 'invalid_token');
    });

    it('gets 401 invalid_credentials, not account_disabled, for a wrong password (so the state is not revealed)', async () => {
      expectErrorBody(
        await request(server, 'POST', '/api/auth/login', { body: { email: dora.email, password: 'wrong-password-here' } }),
        401,
        'invalid_credentials',
      );
    });
  });

  describe('API keys', () => {
    let aliceToken: string;

    beforeAll(async () => {
      aliceToken = await login(server, alice.email, alice.password);
    });

    async function createKey(token: string, name: string): Promise<{ id: number; key: string; prefix: string }> {
      const response = await request(server, 'POST', '/api/api-keys', { token, body: { name } });
      expect(response.status, response.text).toBe(201);
      return response.body;
    }

    it('are created with 201 and an mrk_ key shown in that answer', async () => {
      const response = await request(server, 'POST', '/api/api-keys', { token: aliceToken, body: { name: 'my laptop' } });
      expect(response.status, response.text).toBe(201);
      expect(response.body.key).toMatch(/^mrk_[A-Za-z0-9_-]{20,}$/);
      expect(response.body.name).toBe('my laptop');
      expect(response.body.id).toBeTypeOf('number');
      expect(response.body.key.startsWith(response.body.prefix)).toBe(true);
      expect(response.body.prefix.length).toBeLessThan(response.body.key.length);
    });

    it('are listed with their prefix but never with the key or its hash', async () => {
      const created = await createKey(aliceToken, 'listed key');
      const list = await request(server, 'GET', '/api/api-keys', { token: aliceToken });
      expect(list.status, list.text).toBe(200);
      const item = (list.body.items as Array<Record<string, unknown>>).find((candidate) => candidate.id === created.id);
      expect(item).toBeDefined();
      expect(item!.prefix).toBe(created.prefix);
      expect(item!.prefix).toMatch(/^mrk_/);
      expect(item!.name).toBe('listed key');
      expect(item).not.toHaveProperty('key');
      expect(item).not.toHaveProperty('key_hash');
      expect(list.text).not.toContain(created.key);
      expect(list.text).not.toContain(created.key.slice(created.prefix.length));
      expect(list.text).not.toContain(sha256(created.key));
    });

    it('are stored only as a hash: the key text appears nowhere in the api_keys table', async () => {
      const created = await createKey(aliceToken, 'stored key');
      const tableText = JSON.stringify(await server.store.db.selectFrom('api_keys').selectAll().execute());
      expect(tableText).not.toContain(created.key);
      expect(tableText).toContain(sha256(created.key));
    });

    it('authenticate GET /api/me with credential "api_key"', async () => {
      const created = await createKey(aliceToken, 'me key');
      const response = await request(server, 'GET', '/api/me', { token: created.key });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: alice.id, email: alice.email, credential: 'api_key' });
    });

    it('authenticate any endpoint, as the key’s owner', async () => {
      const adminKey = (await createKey(adminToken, 'admin automation')).key;
      const users = await request(server, 'GET', '/api/users', { token: adminKey });
      expect(users.status, users.text).toBe(200);
      expect(users.body.total).toBeGreaterThanOrEqual(4);
      expect((await request(server, 'GET', '/api/api-keys', { token: adminKey })).status).toBe(200);
      const assistant = await request(server, 'POST', '/api/assistants', { token: adminKey, body: { name: 'Made with a key' } });
      expect(assistant.status, assistant.text).toBe(201);
      const fetched = await request(server, 'GET', `/api/assistants/${assistant.body.id}`, { token: adminKey });
      expect(fetched.status, fetched.text).toBe(200);
      const another = await request(server, 'POST', '/api/api-keys', { token: adminKey, body: { name: 'made by a key' } });
      expect(another.status, another.text).toBe(201);
    });

    it('cannot be used to log out: logout with an API key is 400 and the key keeps working', async () => {
      const created = await createKey(aliceToken, 'logout key');
      expectErrorBody(await request(server, 'POST', '/api/auth/logout', { token: created.key }), 400);
      expect((await request(server, 'GET', '/api/me', { token: created.key })).status).toBe(200);
    });

    it('are deleted with 204, after which the key gets 401 invalid_token and is no longer listed', async () => {
      const created = await createKey(aliceToken, 'doomed key');
      expect((await request(server, 'GET', '/api/me', { token: created.key })).status).toBe(200);

      const deletion = await request(server, 'DELETE', `/api/api-keys/${created.id}`, { token: aliceToken });
      expect(deletion.status, deletion.text).toBe(204);

      expectErrorBody(await request(server, 'GET', '/api/me', { token: created.key }), 401, 'invalid_token');
      const list = await request(server, 'GET', '/api/api-keys', { token: aliceToken });
      expect((list.body.items as Array<{ id: number }>).map((item) => item.id)).not.toContain(created.id);
      expectErrorBody(await request(server, 'DELETE', `/api/api-keys/${created.id}`, { token: aliceToken }), 404, 'not_found');
    });

    it('belong to their owner alone: another user, even a system admin, gets 404 deleting it and does not see it listed', async () => {
      const created = await createKey(aliceToken, 'private key');
      const bobToken = await login(server, bob.email, bob.password);

      expectErrorBody(await request(server, 'DELETE', `/api/api-keys/${created.id}`, { token: bobToken }), 404, 'not_found');
      expectErrorBody(await request(server, 'DELETE', `/api/api-keys/${created.id}`, { token: adminToken }), 404, 'not_found');

      for (const token of [bobToken, adminToken]) {
        const list = await request(server, 'GET', '/api/api-keys', { token });
        expect(list.status).toBe(200);
        expect((list.body.items as Array<{ id: number }>).map((item) => item.id)).not.toContain(created.id);
        expect(list.text).not.toContain(created.prefix);
      }

      expect((await request(server, 'GET', '/api/me', { token: created.key })).status).toBe(200);
    });
  });

  describe('malformed or unknown credentials', () => {
    const badHeaders: ReadonlyArray<{ description: string; value: () => string }> = [
      { description: 'a Basic scheme', value: () => 'Basic x' },
      { description: 'Bearer without a value', value: () => 'Bearer' },
      { description: 'Bearer followed only by spaces', value: () => 'Bearer    ' },
      { description: 'Bearer with two values', value: () => 'Bearer a b' },
      { description: 'a random mrs_ session token', value: () => `Bearer ${randomTokenText('mrs_')}` },
      { description: 'a random mrk_ API key', value: () => `Bearer ${randomTokenText('mrk_')}` },
      { description: 'a bearer value with no known prefix', value: () => `Bearer ${randomTokenText('xyz_')}` },
      { description: 'a bare session token without the Bearer scheme', value: () => randomTokenText('mrs_') },
      { description: 'an empty string', value: () => '' },
    ];

    it.each(badHeaders)('$description gets 401 with OpenAI-style error JSON', async ({ value }) => {
      const response = await request(server, 'GET', '/api/me', { headers: { authorization: value() } });
      const error = expectErrorBody(response, 401);
      expect(['unauthenticated', 'invalid_token']).toContain(error.code);
      expect(error.type).toBe('authentication_error');
    });

    it('a real session token under the Basic scheme is refused with 401', async () => {
      const token = await login(server, bob.email, bob.password);
      expectErrorBody(await request(server, 'GET', '/api/me', { headers: { authorization: `Basic ${token}` } }), 401);
    });

    it('no Authorization header gets 401 unauthenticated on every /api endpoint except login, self sign-up and signed source links', async () => {
      const documentResponse = await request<OpenApiDocument>(server, 'GET', '/openapi.json');
      expect(documentResponse.status).toBe(200);
      const endpoints = Object.entries(documentResponse.body.paths)
        .filter(([path]) => path.startsWith('/api/'))
        .flatMap(([path, operations]) =>
          Object.keys(operations)
            .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
            .map((method) => ({ method: method.toUpperCase(), path })),
        )
        // Logging in and signing up with an organization's key are how one gets a session (self-sign-up-with-an-organization-key.test.ts).
        .filter((endpoint) => !(endpoint.method === 'POST' && ['/api/auth/login', '/api/auth/sign-up'].includes(endpoint.path)))
        // A signed source link speaks for the learner it names (open-webui-chats-run-as-the-forwarded-learner-with-steps-and-signed-sources.test.ts proves who it opens for).
        .filter((endpoint) => !(endpoint.method === 'GET' && endpoint.path === '/api/source-links/{token}'));
      // The foundation has 19 authenticated /api endpoints; fewer means the document lost some.
      expect(endpoints.length).toBeGreaterThanOrEqual(19);

      const failures: string[] = [];
      for (const { method, path } of endpoints) {
        const concretePath = path.replace(/\{[^}]+\}/g, '1');
        const withBody = ['POST', 'PUT', 'PATCH'].includes(method);
        const response = await request(server, method, concretePath, withBody ? { body: { name: 'anything' } } : {});
        if (
          response.status !== 401 ||
          response.body?.error?.code !== 'unauthenticated' ||
          response.body?.error?.type !== 'authentication_error'
        ) {
          failures.push(`${method} ${concretePath} → ${response.status} ${response.text}`);
        }
      }
      expect(failures).toEqual([]);
    });

    it('login itself needs no Authorization header', async () => {
      expect((await request(server, 'POST', '/api/auth/login', { body: { email: bob.email, password: bob.password } })).status).toBe(200);
    });
  });
});
