/** Proves that losing the database under a running server gives a clear 503, never a 500 or a hang, and that /healthz and /readyz report it. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe('a PostgreSQL database that goes away under a running server', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer('postgres');
    token = await loginAsAdmin(server);
    const databaseName = new URL(server.database.databaseUrl!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: inject('postgresAdminUrl') });
    await admin.connect();
    await admin.query(`drop database "${databaseName}" with (force)`);
    await admin.end();
  });

  afterAll(async () => {
    await possiblyUnset(server)
      ?.close()
      .catch(() => undefined);
  });

  it('answers API requests with 503 store_unavailable and no internals', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await request(server, 'GET', '/api/assistants', { token });
      expect(response.status).toBe(503);
      expect(response.body.error).toMatchObject({ code: 'store_unavailable', type: 'server_error', param: null });
      expect(response.text).not.toMatch(/merino_test_|database ".*" does not exist|at .*\.(ts|js):\d+/);
    }
  });

  it.each(['/healthz', '/readyz'])('reports the outage on %s with 503, so a load balancer sends this process nothing', async (path) => {
    const response = await request(server, 'GET', path);
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('store_unavailable');
  });
});
