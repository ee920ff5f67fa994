/**
 * Proves the API key cache is safe with several processes: two real server processes share one
 * PostgreSQL, each answering keys from its own memory for API_KEY_CACHE_MS. A key deleted through
 * the first stops working there at once, and on the second, which had it cached, once the window
 * has passed; a user disabled through the first loses their keys on the second the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from './support/test-server.js';

/** Short, so the test waits little; the wait below is this plus a margin, and nothing measures it. */
const CACHE_MILLISECONDS = 400;

async function pastTheWindow(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, CACHE_MILLISECONDS * 2 + 100));
}

describe.skipIf(!TEST_DIALECTS.includes('postgres'))('API key revocation across two processes on PostgreSQL', () => {
  let database: TestDatabase;
  let first: ServerProcess;
  let second: ServerProcess;
  let adminToken: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const environment = { MERINO_SECRET_KEY: 'two-processes-share-this-secret-key', API_KEY_CACHE_MS: String(CACHE_MILLISECONDS) };
    first = await startServerProcess(database, environment);
    second = await startServerProcess(database, environment);
    const login = await request(first, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    adminToken = login.body.token as string;
  }, 180_000);

  afterAll(async () => {
    await first.kill();
    await second.kill();
    await database.drop();
  });

  async function newKey(token: string, name: string): Promise<{ id: number; key: string }> {
    const created = await request(first, 'POST', '/api/api-keys', { token, body: { name } });
    expect(created.status, created.text).toBe(201);
    return { id: created.body.id, key: created.body.key };
  }

  it('a key deleted on the first process stops working there at once and on the second within the window', async () => {
    const { id, key } = await newKey(adminToken, 'revoked across processes');
    // The second process reads the key now and keeps it in memory.
    expect((await request(second, 'GET', '/api/me', { token: key })).status).toBe(200);
    expect((await request(first, 'GET', '/api/me', { token: key })).status).toBe(200);

    expect((await request(first, 'DELETE', `/api/api-keys/${id}`, { token: adminToken })).status).toBe(204);
    expect((await request(first, 'GET', '/api/me', { token: key })).status).toBe(401);

    await pastTheWindow();
    const refused = await request(second, 'GET', '/api/me', { token: key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_token');
  });

  it('a user disabled on the first process loses their keys on the second within the window', async () => {
    const created = await request(first, 'POST', '/api/users', {
      token: adminToken,
      body: { email: 'disabled-across@merino.test', role: 'creator', password: 'disabled-across-password' },
    });
    expect(created.status, created.text).toBe(201);
    const login = await request(first, 'POST', '/api/auth/login', {
      body: { email: 'disabled-across@merino.test', password: 'disabled-across-password' },
    });
    const { key } = await newKey(login.body.token as string, 'soon disabled');
    expect((await request(second, 'GET', '/api/me', { token: key })).status).toBe(200);

    const disabled = await request(first, 'PATCH', `/api/users/${created.body.id}`, { token: adminToken, body: { disabled: true } });
    expect(disabled.status, disabled.text).toBe(200);
    expect((await request(first, 'GET', '/api/me', { token: key })).status).toBe(401);

    await pastTheWindow();
    expect((await request(second, 'GET', '/api/me', { token: key })).status).toBe(401);
  });
});
