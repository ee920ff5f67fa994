/**
 * What the store-held rate limits cost, on SQLite and on PostgreSQL: a chat request to a bypass
 * assistant with a session (one counter upsert) and with an API key (two), next to a request that
 * is not limited (`GET /v1/models`), and a wrong-password login next to a login refused while its
 * account is locked (which skips scrypt). Prints figures; never passes or fails on them.
 *
 *   npm run bench -- bench/rate-limits.bench.ts      (REQUESTS=1000 CONCURRENCY=8 to change the load)
 */
import { describe, expect, it } from 'vitest';
import { TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { measure, printFigures, type Figures } from './support/measure.js';

const REQUESTS = Number(process.env.REQUESTS ?? 1_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const LOGINS = 20;

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  // Limits far above the load, so every request is counted and none is refused.
  const server = await startTestServer(dialect, {
    environment: {
      LOG_LEVEL: 'warn',
      CHAT_REQUESTS_PER_USER_MAX: '1000000',
      CHAT_REQUESTS_PER_API_KEY_MAX: '1000000',
      LOGIN_FAILURES_PER_ACCOUNT_MAX: String(LOGINS),
    },
  });
  try {
    const adminToken = await loginAsAdmin(server);
    const learner = await createUser(server, adminToken, { email: 'bench-learner@merino.test', role: 'learner' });
    const key = (await request(server, 'POST', '/api/api-keys', { token: learner.token, body: { name: 'bench' } })).body.key as string;
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: { name: 'Echo', metadata: { connector: 'bypass', llm: 'debug-bypass' } },
    });
    await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: adminToken, body: { published: true } });
    const body = { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: 'hello' }] };
    const rows = [
      await measure(
        'GET /v1/models (not limited, session)',
        REQUESTS,
        CONCURRENCY,
        async () => (await request(server, 'GET', '/v1/models', { token: learner.token })).status,
      ),
      await measure(
        'POST /v1/chat/completions (session: 1 counter)',
        REQUESTS,
        CONCURRENCY,
        async () => (await request(server, 'POST', '/v1/chat/completions', { token: learner.token, body })).status,
      ),
      await measure(
        'POST /v1/chat/completions (API key: 2 counters)',
        REQUESTS,
        CONCURRENCY,
        async () => (await request(server, 'POST', '/v1/chat/completions', { token: key, body })).status,
      ),
    ];
    const wrong = await measure('POST /api/auth/login, wrong password (scrypt)', LOGINS, 2, async () => {
      const status = (await request(server, 'POST', '/api/auth/login', { body: { email: learner.email, password: 'not-the-password' } }))
        .status;
      return status === 401 ? 200 : status;
    });
    const locked = await measure('POST /api/auth/login, account locked (429, no scrypt)', LOGINS, 2, async () => {
      const status = (await request(server, 'POST', '/api/auth/login', { body: { email: learner.email, password: learner.password } }))
        .status;
      return status === 429 ? 200 : status;
    });
    return [...rows, wrong, locked];
  } finally {
    await server.close();
  }
}

describe.each(TEST_DIALECTS)('rate limits on %s', (dialect) => {
  it('counts every limited request without a failure', { timeout: 600_000 }, async () => {
    const rows = await benchmark(dialect);
    printFigures(`${dialect} (${REQUESTS} requests, ${CONCURRENCY} concurrent)`, rows);
    expect(rows.map((row) => [row.name, row.errors])).toEqual(rows.map((row) => [row.name, 0]));
  });
});
