/**
 * PASSWORD_HASH_COST can be raised on a running installation: accounts made at the old cost still
 * log in, and each one's hash is stored again at the new cost by its first successful login, on
 * both stores. A failed login changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByEmail } from '../src/store/users-repository.js';
import { TEST_DIALECTS, TEST_PASSWORD_HASH_COST } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const RAISED_COST = TEST_PASSWORD_HASH_COST + 1;

describe.each(TEST_DIALECTS)('password hashes on %s', (dialect) => {
  let before: TestServer;
  let after: TestServer;

  beforeAll(async () => {
    before = await startTestServer(dialect);
    after = await startTestServer(dialect, { database: before.database, environment: { PASSWORD_HASH_COST: String(RAISED_COST) } });
  });

  afterAll(async () => {
    await possiblyUnset(after)?.close();
    await possiblyUnset(before)?.close();
  });

  async function storedHash(email: string): Promise<string> {
    return (await findUserByEmail(before.store.db, email))?.password_hash ?? '';
  }

  it('are stored again at the raised cost by the next login, and still only the right password logs in', async () => {
    const learner = await createUser(before, await loginAsAdmin(before), { email: `raised-${dialect}@merino.test`, role: 'learner' });
    expect(await storedHash(learner.email)).toMatch(new RegExp(`^scrypt\\$${2 ** TEST_PASSWORD_HASH_COST}\\$`));

    const wrong = await request(after, 'POST', '/api/auth/login', { body: { email: learner.email, password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect(await storedHash(learner.email)).toMatch(new RegExp(`^scrypt\\$${2 ** TEST_PASSWORD_HASH_COST}\\$`));

    const right = await request(after, 'POST', '/api/auth/login', { body: { email: learner.email, password: learner.password } });
    expect(right.status).toBe(200);
    const raised = await storedHash(learner.email);
    expect(raised).toMatch(new RegExp(`^scrypt\\$${2 ** RAISED_COST}\\$`));

    // Once at the configured cost, a login leaves the hash as it is.
    expect((await request(after, 'POST', '/api/auth/login', { body: { email: learner.email, password: learner.password } })).status).toBe(
      200,
    );
    expect(await storedHash(learner.email)).toBe(raised);
  });
});
