/**
 * Proves that LTI replay protection lives in the store, not in one process: two real server
 * processes share one PostgreSQL; a 1.1 launch accepted by the first is refused by the second
 * when its nonce comes again, while a fresh nonce is accepted by either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postLaunch, signedLaunch, type ConsumerCredentials } from './fakes/lti-consumer.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from './support/test-server.js';

describe.skipIf(!TEST_DIALECTS.includes('postgres'))('LTI nonces across two processes on PostgreSQL', () => {
  let database: TestDatabase;
  let first: ServerProcess;
  let second: ServerProcess;
  let consumer: ConsumerCredentials;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const environment = { MERINO_SECRET_KEY: 'two-processes-share-this-secret-key' };
    first = await startServerProcess(database, environment);
    second = await startServerProcess(database, environment);
    const login = await request(first, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    const adminToken = login.body.token as string;
    const made = await request(first, 'POST', '/api/lti/consumers', { token: adminToken, body: { name: 'Moodle' } });
    expect(made.status, made.text).toBe(201);
    consumer = { key: made.body.consumer_key, secret: made.body.consumer_secret };
  }, 180_000);

  afterAll(async () => {
    await first.kill();
    await second.kill();
    await database.drop();
  });

  function launchFor(server: ServerProcess, nonce: string): Record<string, string> {
    return signedLaunch(consumer, {
      url: `${server.baseUrl}/lti/launch`,
      parameters: { resource_link_id: 'shared-link', user_id: 'learner-1', roles: 'Learner' },
      nonce,
    });
  }

  it('refuses on the second process a nonce the first accepted', async () => {
    const accepted = await postLaunch(`${first.baseUrl}/lti/launch`, launchFor(first, 'spent-once'));
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.text).toContain('has not set this activity up yet');
    // The second process listens on another port, so the consumer signs for its URL; only the nonce repeats.
    const replayed = await postLaunch(`${second.baseUrl}/lti/launch`, launchFor(second, 'spent-once'));
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('already used once');
    const fresh = await postLaunch(`${second.baseUrl}/lti/launch`, launchFor(second, 'fresh-on-second'));
    expect(fresh.status).toBe(200);
  });
});
