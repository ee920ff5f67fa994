// Proves, on both stores, that no server log line ever holds a password, session token, API key or query-string secret, that every request line carries a request id, and that x-request-id echoes only safe client ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  login,
  request,
  startTestServer,
  type JsonResponse,
  type RequestOptions,
  type TestServer,
} from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface LogRecord {
  msg?: string;
  reqId?: unknown;
  req?: { id?: unknown; url?: string };
  res?: unknown;
  [field: string]: unknown;
}

function parseLine(line: string): LogRecord {
  return JSON.parse(line) as LogRecord;
}

describe.each(TEST_DIALECTS)('server logs on %s', (dialect) => {
  let server: TestServer;
  /** Every secret the traffic below carries, by what it is. */
  const secrets = new Map<string, string>([['the admin password', ADMIN_PASSWORD]]);
  /** The client request id of every step, so the test can prove the step was logged at all. */
  const stepIds: string[] = [];
  let stepCounter = 0;

  /** One request, tagged with a fresh safe request id. */
  async function step(method: string, path: string, options: RequestOptions = {}): Promise<JsonResponse> {
    stepCounter += 1;
    const requestId = `step-${stepCounter}`;
    stepIds.push(requestId);
    const response = await request(server, method, path, { ...options, headers: { ...options.headers, 'x-request-id': requestId } });
    expect(response.headers.get('x-request-id')).toBe(requestId);
    return response;
  }

  function secretsFoundInLogs(): string[] {
    const found: string[] = [];
    for (const [label, secret] of secrets) {
      const line = server.logLines.find((candidate) => candidate.includes(secret));
      if (line !== undefined) found.push(`${label} appears in: ${line.slice(0, 400)}`);
    }
    return found;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('driving traffic that carries secrets', () => {
    let adminToken: string;
    let userToken: string;
    let userId: number;
    let apiKey: string;

    it('logs in with the right and a wrong password', async () => {
      const right = await step('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
      expect(right.status).toBe(200);
      adminToken = right.body.token;
      secrets.set('the admin session token', adminToken);

      const wrongPassword = 'wrong-password-for-the-logs-test';
      secrets.set('a wrong login password', wrongPassword);
      expect((await step('POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: wrongPassword } })).status).toBe(401);
      expect((await step('POST', '/api/auth/login', { body: { email: 'nobody@merino.test', password: wrongPassword } })).status).toBe(401);
    });

    it('creates a user with a password, logs them in and changes their password', async () => {
      const createdPassword = 'created-user-password-7f3a';
      secrets.set('a created user password', createdPassword);
      const created = await step('POST', '/api/users', {
        token: adminToken,
        body: { email: 'logged@merino.test', password: createdPassword, role: 'creator' },
      });
      expect(created.status, created.text).toBe(201);
      userId = created.body.id;

      const userLogin = await step('POST', '/api/auth/login', { body: { email: 'logged@merino.test', password: createdPassword } });
      expect(userLogin.status).toBe(200);
      userToken = userLogin.body.token;
      secrets.set('the user session token', userToken);

      const changedPassword = 'changed-user-password-91bc';
      secrets.set('a changed user password', changedPassword);
      expect((await step('PATCH', `/api/users/${userId}`, { token: adminToken, body: { password: changedPassword } })).status).toBe(200);
      userToken = await login(server, 'logged@merino.test', changedPassword);
      secrets.set('the user’s second session token', userToken);
    });

    it('creates an API key and uses it', async () => {
      const created = await step('POST', '/api/api-keys', { token: userToken, body: { name: 'logged key' } });
      expect(created.status).toBe(201);
      apiKey = created.body.key;
      secrets.set('the API key', apiKey);
      expect((await step('GET', '/api/me', { token: apiKey })).status).toBe(200);
      expect((await step('POST', '/api/assistants', { token: apiKey, body: { name: 'Made with a key' } })).status).toBe(201);
      expect((await step('GET', '/api/assistants', { token: apiKey })).status).toBe(200);
    });

    it('sends secrets in query strings, on known, validated and unknown routes', async () => {
      const queryToken = 'mrs_querystringsecretvalue0123456789abcdef';
      const queryKey = 'query-string-api-key-value-5d2e';
      const encodedSecret = 'encoded secret/with+symbols&more';
      secrets.set('a query-string token', queryToken);
      secrets.set('a query-string api_key', queryKey);
      secrets.set('a percent-encoded query-string secret', encodeURIComponent(encodedSecret));
      expect((await step('GET', `/api/me?token=${queryToken}`, { token: adminToken })).status).toBe(200);
      expect((await step('GET', `/api/me?token=${queryToken}`)).status).toBe(401);
      expect((await step('GET', `/api/users?token=${queryToken}`, { token: adminToken })).status).toBe(400);
      expect(
        (await step('GET', `/api/assistants?limit=5&api_key=${queryKey}&access_token=${queryToken}`, { token: adminToken })).status,
      ).toBe(400);
      expect((await step('GET', `/healthz?token=${queryToken}`)).status).toBe(200);
      expect((await step('GET', `/api/no/such/route?token=${queryToken}&password=${encodeURIComponent(encodedSecret)}`)).status).toBe(404);
      // An unknown path outside the API is the web app's page; its query is logged redacted all the same.
      expect((await step('GET', `/no/such/page?token=${queryToken}&password=${encodeURIComponent(encodedSecret)}`)).status).toBe(200);
      expect((await step('POST', `/api/auth/login?key=${queryKey}`, { body: { email: ADMIN_EMAIL, password: 'x' } })).status).toBe(401);
    });

    it('sends malformed bodies that contain passwords', async () => {
      const malformedPassword = 'malformed-body-password-c4d1';
      const schemaPassword = 'schema-refused-password-88e0';
      const conflictPassword = 'conflicting-user-password-a1b2';
      secrets.set('a password in a malformed body', malformedPassword);
      secrets.set('a password in a schema-refused body', schemaPassword);
      secrets.set('a password in a refused user creation', conflictPassword);
      secrets.set('a too-short password', 'short88');

      expect(
        (await step('POST', '/api/auth/login', { rawBody: `{"email":"${ADMIN_EMAIL}","password":"${malformedPassword}"` })).status,
      ).toBe(400);
      expect(
        (await step('POST', '/api/auth/login', { rawBody: `{"email":"${ADMIN_EMAIL}","password":"${malformedPassword}","extra":1}` }))
          .status,
      ).toBe(400);
      expect(
        (
          await step('POST', '/api/auth/login', {
            rawBody: `email=a&password=${malformedPassword}`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        ).status,
      ).toBe(415);
      expect(
        (
          await step('POST', '/api/users', {
            token: adminToken,
            body: { email: 'refused@merino.test', password: schemaPassword, role: 'owner' },
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await step('POST', '/api/users', {
            token: adminToken,
            body: { email: 'logged@merino.test', password: conflictPassword, role: 'learner' },
          })
        ).status,
      ).toBe(409);
      expect(
        (
          await step('POST', '/api/users', {
            token: adminToken,
            body: { email: 'short@merino.test', password: 'short88', role: 'learner' },
          })
        ).status,
      ).toBe(400);
      expect((await step('PATCH', `/api/users/${userId}`, { token: userToken, body: { password: schemaPassword } })).status).toBe(403);
      const oversized = await step('POST', '/api/auth/login', {
        rawBody: JSON.stringify({ email: ADMIN_EMAIL, password: malformedPassword, padding: 'p'.repeat(1_100_000) }),
      });
      expect(oversized.status).toBe(413);
    });

    it('takes error paths that end in 4xx: unknown route, forbidden, not found, bad token, logout', async () => {
      expect((await step('GET', '/api/nothing-here', { token: adminToken })).status).toBe(404);
      expect((await step('GET', '/api/users', { token: userToken })).status).toBe(403);
      expect((await step('GET', '/api/assistants/987654', { token: adminToken })).status).toBe(404);
      expect((await step('GET', '/api/me', { headers: { authorization: `Bearer ${apiKey}x` } })).status).toBe(401);
      expect(
        (
          await step('GET', '/api/me', {
            headers: { authorization: `Basic ${Buffer.from(`${ADMIN_EMAIL}:${ADMIN_PASSWORD}`).toString('base64')}` },
          })
        ).status,
      ).toBe(401);
      secrets.set('Basic credentials', Buffer.from(`${ADMIN_EMAIL}:${ADMIN_PASSWORD}`).toString('base64'));
      expect((await step('POST', '/api/auth/logout', { token: userToken })).status).toBe(204);
      expect((await step('GET', '/api/me', { token: userToken })).status).toBe(401);
    });

    it('sends a login whose email holds a NUL byte (a store error on PostgreSQL) with a password', async () => {
      const password = 'password-beside-a-nul-email-0e9d';
      secrets.set('a password sent beside a NUL email', password);
      const response = await step('POST', '/api/auth/login', { body: { email: `nul\u0000@merino.test`, password } });
      expect(response.status).toBeGreaterThanOrEqual(400);
    });
  });

  describe('the log lines', () => {
    it('record every request the test made, so the checks below are not vacuous', () => {
      expect(stepIds.length).toBeGreaterThan(30);
      const loggedIds = new Set(server.logLines.map(parseLine).map((record) => record.reqId));
      const missing = stepIds.filter((id) => !loggedIds.has(id));
      expect(missing).toEqual([]);
      expect(secrets.size).toBeGreaterThanOrEqual(15);
    });

    it('hold no password, session token, API key or query-string secret', () => {
      expect(secretsFoundInLogs()).toEqual([]);
    });

    it('hold nothing that looks like a Merino token or key', () => {
      const lines = server.logLines.filter((line) => /mr[sk]_[A-Za-z0-9_-]{16,}/.test(line));
      expect(lines).toEqual([]);
    });

    it('show query strings with their parameter names but masked values', () => {
      const urls = server.logLines
        .map(parseLine)
        .filter((record) => record.msg === 'incoming request' && typeof record.req?.url === 'string' && record.req.url.includes('?'))
        .map((record) => record.req!.url!);
      expect(urls).toContain('/api/me?token=…');
      expect(urls).toContain('/api/assistants?limit=…&api_key=…&access_token=…');
    });

    it('give every request line a request id that matches the request it belongs to', () => {
      const requestLines = server.logLines
        .map(parseLine)
        .filter(
          (record) =>
            record.req !== undefined || record.res !== undefined || record.msg === 'incoming request' || record.msg === 'request completed',
        );
      expect(requestLines.length).toBeGreaterThanOrEqual(stepIds.length * 2);
      const withoutId = requestLines.filter((record) => typeof record.reqId !== 'string' || record.reqId === '');
      expect(withoutId).toEqual([]);
      const mismatched = requestLines.filter((record) => record.req !== undefined && record.req.id !== record.reqId);
      expect(mismatched).toEqual([]);
      const incoming = requestLines.filter((record) => record.msg === 'incoming request').map((record) => record.reqId);
      const completed = requestLines.filter((record) => record.msg === 'request completed').map((record) => record.reqId);
      for (const id of stepIds) {
        expect(incoming, `incoming request line of ${id}`).toContain(id);
        expect(completed, `request completed line of ${id}`).toContain(id);
      }
    });
  });

  describe('a bare secret as the whole query string', () => {
    it('is not logged either', async () => {
      const bareSecret = 'mrk_barequerystringsecret0123456789abcdef';
      const response = await request(server, 'GET', `/api/me?${bareSecret}`, { headers: { 'x-request-id': 'bare-query-secret' } });
      expect(response.status).toBe(401);
      const lines = server.logLines.filter((line) => line.includes('"bare-query-secret"'));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter((line) => line.includes(bareSecret))).toEqual([]);
    });
  });

  describe('the x-request-id response header', () => {
    it.each([
      ['a plain id', 'client-request-42'],
      ['an id with dots, colons and underscores', 'trace_1.2:3-abc'],
      ['an id of exactly 64 characters', 'a'.repeat(64)],
    ])('echoes %s sent by the client, and the logs use it', async (_description, id) => {
      const response = await request(server, 'GET', '/status', { headers: { 'x-request-id': id } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe(id);
      expect(server.logLines.map(parseLine).some((record) => record.reqId === id && record.msg === 'incoming request')).toBe(true);
    });

    it.each([
      ['an id with spaces', 'id with spaces'],
      ['an id of 200 characters', 'b'.repeat(200)],
      ['an id of 65 characters', 'c'.repeat(65)],
      ['an id with markup', '<script>alert(1)</script>'],
      ['an id with a quote and a semicolon', 'id";drop'],
      ['an id with a slash', 'id/with/slash'],
    ])('replaces %s with a fresh UUID that the logs use, and never logs the unsafe id', async (_description, id) => {
      const response = await request(server, 'GET', '/status', { headers: { 'x-request-id': id } });
      expect(response.status).toBe(200);
      const replacement = response.headers.get('x-request-id');
      expect(replacement).not.toBe(id);
      expect(replacement).toMatch(UUID_PATTERN);
      expect(server.logLines.map(parseLine).some((record) => record.reqId === replacement)).toBe(true);
      expect(server.logLines.filter((line) => line.includes(id))).toEqual([]);
    });

    it('is a fresh UUID when the client sends none, different for every request', async () => {
      const first = await request(server, 'GET', '/status');
      const second = await request(server, 'GET', '/status');
      expect(first.headers.get('x-request-id')).toMatch(UUID_PATTERN);
      expect(second.headers.get('x-request-id')).toMatch(UUID_PATTERN);
      expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    });

    it('is set on error answers too', async () => {
      const response = await request(server, 'GET', '/api/me', { headers: { 'x-request-id': 'error-answer-id' } });
      expect(response.status).toBe(401);
      expect(response.headers.get('x-request-id')).toBe('error-answer-id');
    });
  });
});
