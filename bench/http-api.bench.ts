/**
 * Benchmark of the foundation's HTTP API on SQLite and on PostgreSQL: requests per second and
 * latency percentiles for the calls clients make most, over loopback, with a bounded number of
 * requests. Prints figures; it never passes or fails on them.
 *
 *   npm run bench               (REQUESTS=2000 CONCURRENCY=16 to change the load)
 *
 * It runs under vitest (vitest.bench.config.ts), outside the test suite, to share its throw-away
 * PostgreSQL; the only thing it checks is that no request failed.
 */
import { describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
import { TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { measure, printFigures, type Figures } from './support/measure.js';

const REQUESTS = Number(process.env.REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const SEEDED_ASSISTANTS = 500;
const LOGINS = 20;

async function benchmark(dialect: Dialect): Promise<Figures[]> {
  const server: TestServer = await startTestServer(dialect, { environment: { LOG_LEVEL: 'warn' } });
  try {
    const adminToken = await loginAsAdmin(server);
    const creator = await createUser(server, adminToken, { email: 'bench-creator@merino.test', role: 'creator' });
    const learner = await createUser(server, adminToken, { email: 'bench-learner@merino.test', role: 'learner' });
    const key = (await request(server, 'POST', '/api/api-keys', { token: creator.token, body: { name: 'bench' } })).body.key as string;
    const ids: number[] = [];
    for (let index = 0; index < SEEDED_ASSISTANTS; index += 1) {
      const created = await request(server, 'POST', '/api/assistants', {
        token: creator.token,
        body: {
          name: `Assistant ${index}`,
          description: `Subject ${index % 17}`,
          metadata: { assistant_type: index % 2 ? 'multi_tool' : 'classic', tools: ['no_rag'] },
        },
      });
      ids.push(created.body.id);
      if (index % 5 === 0)
        await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: creator.token, body: { published: true } });
    }
    return [
      await measure(
        'GET /api/assistants/{id} (API key)',
        REQUESTS,
        CONCURRENCY,
        async (index) => (await request(server, 'GET', `/api/assistants/${ids[index % ids.length]}`, { token: key })).status,
      ),
      await measure(
        'GET /api/assistants?limit=50 (owner)',
        REQUESTS,
        CONCURRENCY,
        async () => (await request(server, 'GET', '/api/assistants?limit=50', { token: creator.token })).status,
      ),
      await measure(
        'GET /api/assistants?q=subject 3 (learner)',
        REQUESTS,
        CONCURRENCY,
        async () => (await request(server, 'GET', '/api/assistants?q=subject%203', { token: learner.token })).status,
      ),
      await measure(
        'POST /api/assistants',
        REQUESTS / 2,
        CONCURRENCY,
        async (index) =>
          (
            await request(server, 'POST', '/api/assistants', {
              token: key,
              body: { name: `Bench ${index}`, metadata: { tools: ['no_rag'] } },
            })
          ).status,
      ),
      await measure(
        'PATCH /api/assistants/{id}',
        REQUESTS / 2,
        CONCURRENCY,
        async (index) =>
          (await request(server, 'PATCH', `/api/assistants/${ids[index % ids.length]}`, { token: key, body: { description: `v${index}` } }))
            .status,
      ),
      await measure(
        'POST /api/auth/login (scrypt)',
        LOGINS,
        2,
        async () =>
          (await request(server, 'POST', '/api/auth/login', { body: { email: 'bench-learner@merino.test', password: learner.password } }))
            .status,
      ),
    ];
  } finally {
    await server.close();
  }
}

function print(dialect: Dialect, rows: Figures[]): void {
  printFigures(`${dialect} (${REQUESTS} requests, ${CONCURRENCY} concurrent, ${SEEDED_ASSISTANTS} assistants seeded)`, rows);
}

describe.each(TEST_DIALECTS)('the HTTP API on %s', (dialect) => {
  it('serves the benchmark load without a failed request', { timeout: 600_000 }, async () => {
    const rows = await benchmark(dialect);
    print(dialect, rows);
    expect(rows.map((row) => [row.name, row.errors])).toEqual(rows.map((row) => [row.name, 0]));
  });
});
