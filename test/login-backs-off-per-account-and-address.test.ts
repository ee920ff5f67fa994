/**
 * Failed logins are limited per account and per client address, in the store, over real HTTP on
 * both dialects: past the limit a login answers 429 with Retry-After (even with the right
 * password) and costs no password hashing; two servers over one database share the counts; the
 * audit log records the lock-out and the refused attempts without the password or the email typed;
 * client addresses come from X-Forwarded-For only when TRUST_PROXY says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const LIMITS = { LOGIN_FAILURES_PER_ACCOUNT_MAX: '3', LOGIN_FAILURES_PER_ADDRESS_MAX: '5', LOGIN_FAILURE_WINDOW_SECONDS: '3600' };
const WRONG_PASSWORD = 'wrong-password-that-must-never-be-stored';

describe.each(TEST_DIALECTS)('login back-off on %s', (dialect) => {
  let first: TestServer;
  let second: TestServer;
  let untrusting: TestServer;
  let adminToken: string;

  const attempt = (server: TestServer, email: string, password: string, address: string) =>
    request(server, 'POST', '/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': address } });

  async function account(name: string): Promise<{ email: string; password: string }> {
    const user = await createUser(first, adminToken, { email: `${name}-${dialect}@merino.test`, role: 'learner' });
    return { email: user.email, password: user.password };
  }

  function expectRateLimited(response: Awaited<ReturnType<typeof attempt>>): void {
    expect(response.status, response.text).toBe(429);
    expect(response.body.error.code).toBe('rate_limited');
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(response.body.error.details.retry_after_seconds).toBe(retryAfter);
    expect(response.body).not.toHaveProperty('token');
  }

  beforeAll(async () => {
    first = await startTestServer(dialect, { environment: { ...LIMITS, TRUST_PROXY: 'true' } });
    second = await startTestServer(dialect, { database: first.database, environment: { ...LIMITS, TRUST_PROXY: 'true' } });
    untrusting = await startTestServer(dialect, { database: first.database, environment: LIMITS });
    adminToken = await loginAsAdmin(first);
  });

  afterAll(async () => {
    await possiblyUnset(untrusting)?.close();
    await possiblyUnset(second)?.close();
    await possiblyUnset(first)?.close();
  });

  it('locks an account after its failures from any addresses, even for the right password, and leaves other accounts alone', async () => {
    const alice = await account('alice');
    const bob = await account('bob');
    for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      expect((await attempt(first, alice.email, WRONG_PASSWORD, address)).status).toBe(401);
    }
    expectRateLimited(await attempt(first, alice.email, alice.password, '198.51.100.4'));
    expectRateLimited(await attempt(first, alice.email.toUpperCase(), alice.password, '198.51.100.5'));
    expect((await attempt(first, bob.email, bob.password, '198.51.100.4')).status).toBe(200);
  });

  it('locks a client address after failures on many accounts, and lets other addresses in', async () => {
    const carol = await account('carol');
    for (let index = 0; index < 5; index += 1) {
      expect((await attempt(first, `nobody-${index}-${dialect}@merino.test`, WRONG_PASSWORD, '203.0.113.7')).status).toBe(401);
    }
    expectRateLimited(await attempt(first, carol.email, carol.password, '203.0.113.7'));
    expect((await attempt(first, carol.email, carol.password, '203.0.113.8')).status).toBe(200);
  });

  it('shares the counts between two servers over one database', async () => {
    const dave = await account('dave');
    expect((await attempt(first, dave.email, WRONG_PASSWORD, '192.0.2.1')).status).toBe(401);
    expect((await attempt(second, dave.email, WRONG_PASSWORD, '192.0.2.2')).status).toBe(401);
    expect((await attempt(first, dave.email, WRONG_PASSWORD, '192.0.2.3')).status).toBe(401);
    expectRateLimited(await attempt(second, dave.email, dave.password, '192.0.2.4'));
    expectRateLimited(await attempt(first, dave.email, dave.password, '192.0.2.5'));
  });

  it("forgets an account's failures after a successful login", async () => {
    const erin = await account('erin');
    for (const round of [1, 2]) {
      expect((await attempt(first, erin.email, WRONG_PASSWORD, `192.0.2.${10 + round}`)).status).toBe(401);
      expect((await attempt(first, erin.email, WRONG_PASSWORD, `192.0.2.${20 + round}`)).status).toBe(401);
      expect((await attempt(first, erin.email, erin.password, `192.0.2.${30 + round}`)).status).toBe(200);
    }
  });

  it('records the lock-out and each refused attempt in the audit log, never the password or the email typed', async () => {
    const frank = await account('frank');
    for (let index = 0; index < 3; index += 1) await attempt(first, frank.email, WRONG_PASSWORD, '192.0.2.50');
    await attempt(first, frank.email, frank.password, '192.0.2.51');
    const frankId = (await first.store.db.selectFrom('users').select('id').where('email', '=', frank.email).executeTakeFirstOrThrow()).id;
    const entries = await first.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target_id', '=', String(frankId))
      .where('action', 'like', 'auth.login_%')
      .orderBy('id')
      .execute();
    expect(entries.map((entry) => entry.action)).toEqual([
      'auth.login_failed',
      'auth.login_failed',
      'auth.login_failed',
      'auth.login_locked',
      'auth.login_refused',
    ]);
    expect(JSON.parse(entries.at(-2)!.details)).toMatchObject({ scope: 'account', client_address: '192.0.2.50' });
    expect(JSON.parse(entries.at(-1)!.details)).toMatchObject({ scope: 'account', client_address: '192.0.2.51' });
    const everything = JSON.stringify(await first.store.db.selectFrom('audit_log').selectAll().execute());
    expect(everything).not.toContain(WRONG_PASSWORD);
    expect(everything).not.toContain(frank.password);
    expect(everything).not.toContain('nobody-0');
    const counters = JSON.stringify(await first.store.db.selectFrom('rate_limit_counters').selectAll().execute());
    expect(counters).not.toContain(frank.email);
    expect(counters).not.toContain('nobody-0');
    for (const server of [first, second]) {
      const logs = server.logLines.join('\n');
      expect(logs).not.toContain(WRONG_PASSWORD);
      expect(logs).not.toContain(frank.password);
    }
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a client cannot pick a fresh address for each guess', async () => {
    // Every other test's failures came "from" documentation addresses; this server sees them all as 127.0.0.1.
    const gina = await account('gina');
    for (let index = 0; index < 5; index += 1) {
      await attempt(untrusting, `ghost-${index}-${dialect}@merino.test`, WRONG_PASSWORD, `198.18.0.${index}`);
    }
    expectRateLimited(await attempt(untrusting, gina.email, gina.password, '198.18.0.99'));
    // Through a proxy it trusts, the first server still tells the addresses apart.
    expect((await attempt(first, gina.email, gina.password, '198.18.0.99')).status).toBe(200);
  });
});
