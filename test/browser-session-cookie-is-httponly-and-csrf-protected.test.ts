/**
 * Proves, on both stores, that login sets an HttpOnly, SameSite=Lax session cookie (Secure over
 * HTTPS as a trusted proxy reports it) while the token in the body keeps working; that the cookie
 * alone authenticates; that a change made with it succeeds only from this server's origin or one of
 * CORS_ORIGINS and otherwise is 403 csrf_rejected and changes nothing; that bearer callers are not
 * subject to the origin check; that logout revokes the session and clears the cookie; that hostile
 * Cookie headers get a clean 4xx; and that the cookie's value never reaches the logs.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type JsonResponse,
  type TestServer,
} from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const FOREIGN_ORIGIN = 'https://attacker.example';
const ALLOWED_CROSS_ORIGIN = 'https://app.example.org';
const DEFAULT_SESSION_SECONDS = 168 * 3600;

/** Logs in as the administrator and returns the whole answer, so its Set-Cookie can be read. */
async function loginAnswer(server: TestServer, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, headers });
  expect(response.status, response.text).toBe(200);
  return response;
}

function sessionSetCookie(response: JsonResponse): string {
  const cookies = response.headers.getSetCookie().filter((cookie) => cookie.startsWith('merino_session='));
  expect(cookies).toHaveLength(1);
  return cookies[0]!;
}

/** The `name=value` pair a browser would send back. */
function cookiePair(setCookie: string): string {
  return setCookie.split(';')[0]!;
}

function attributes(setCookie: string): string[] {
  return setCookie
    .split(';')
    .slice(1)
    .map((attribute) => attribute.trim());
}

/** Sends bytes over a raw socket (fetch refuses to send a NUL byte) and reads the status. */
function rawStatus(server: TestServer, bytes: string): Promise<number> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.end(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('utf8'));
      if (status === null) reject(new Error('no HTTP answer'));
      else resolve(Number(status[1]));
    });
  });
}

describe.each(TEST_DIALECTS)('the browser session cookie on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let cookie: string;
  const cookieValues: string[] = [];

  async function assistantCount(): Promise<number> {
    const response = await request(server, 'GET', '/api/assistants?limit=200', { token: adminToken });
    expect(response.status).toBe(200);
    return (response.body.items as unknown[]).length;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    cookie = cookiePair(sessionSetCookie(await loginAnswer(server)));
    cookieValues.push(cookie.slice('merino_session='.length));
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('login', () => {
    it('sets an HttpOnly, SameSite=Lax cookie for the whole site that lasts as long as the session, not Secure over plain HTTP', async () => {
      const response = await loginAnswer(server);
      const setCookie = sessionSetCookie(response);
      expect(cookiePair(setCookie)).toBe(`merino_session=${response.body.token}`);
      cookieValues.push(response.body.token);
      expect(attributes(setCookie).sort()).toEqual(['HttpOnly', `Max-Age=${DEFAULT_SESSION_SECONDS}`, 'Path=/', 'SameSite=Lax'].sort());
    });

    it('still answers with a token in the body that works as a bearer token', async () => {
      const response = await loginAnswer(server);
      cookieValues.push(response.body.token);
      expect(response.body.token_type).toBe('Bearer');
      const me = await request(server, 'GET', '/api/me', { token: response.body.token });
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(ADMIN_EMAIL);
    });

    it('ignores X-Forwarded-Proto when TRUST_PROXY is off, so a client cannot make the cookie Secure-only by claiming HTTPS', async () => {
      const setCookie = sessionSetCookie(await loginAnswer(server, { 'x-forwarded-proto': 'https' }));
      cookieValues.push(cookiePair(setCookie).slice('merino_session='.length));
      expect(attributes(setCookie)).not.toContain('Secure');
    });

    it('sets no cookie when the login fails', async () => {
      const response = await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: 'wrong-password-here' } });
      expect(response.status).toBe(401);
      expect(response.headers.getSetCookie()).toEqual([]);
    });
  });

  describe('reading with the cookie', () => {
    it('authenticates a GET with the cookie alone, as a session', async () => {
      const me = await request(server, 'GET', '/api/me', { headers: { cookie } });
      expect(me.status, me.text).toBe(200);
      expect(me.body).toMatchObject({ email: ADMIN_EMAIL, credential: 'session' });
    });

    it('authenticates a learner the same way', async () => {
      const learner = await createUser(server, adminToken, { email: 'cookie-learner@merino.test', role: 'learner' });
      const answer = await request(server, 'POST', '/api/auth/login', { body: { email: learner.email, password: learner.password } });
      const learnerCookie = cookiePair(sessionSetCookie(answer));
      cookieValues.push(answer.body.token);
      const me = await request(server, 'GET', '/api/me', { headers: { cookie: learnerCookie } });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ email: learner.email, role: 'learner' });
      // A learner's cookie reaches only what a learner's token does.
      expect((await request(server, 'GET', '/api/users', { headers: { cookie: learnerCookie } })).status).toBe(403);
    });

    it('finds the session cookie among other cookies of the same host', async () => {
      const me = await request(server, 'GET', '/api/me', { headers: { cookie: `theme=dark; ${cookie}; lang=es` } });
      expect(me.status).toBe(200);
    });

    it('lets an Authorization header win over the cookie', async () => {
      const me = await request(server, 'GET', '/api/me', { headers: { cookie, authorization: 'Bearer mrs_notarealtokenatall0123456789' } });
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe('invalid_token');
    });

    it('answers 401 unauthenticated with neither a header nor a cookie', async () => {
      const me = await request(server, 'GET', '/api/me');
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe('unauthenticated');
    });
  });

  describe('changes made with the cookie (CSRF)', () => {
    it('succeed when the Origin is this server’s own', async () => {
      const before = await assistantCount();
      const created = await request(server, 'POST', '/api/assistants', {
        headers: { cookie, origin: server.baseUrl },
        body: { name: 'Made from the same origin' },
      });
      expect(created.status, created.text).toBe(201);
      expect(await assistantCount()).toBe(before + 1);
    });

    it('succeed with a same-origin Referer when the browser sent no Origin', async () => {
      const created = await request(server, 'POST', '/api/assistants', {
        headers: { cookie, referer: `${server.baseUrl}/assistants/new?draft=1` },
        body: { name: 'Made with a same-origin referer' },
      });
      expect(created.status, created.text).toBe(201);
    });

    it.each([
      ['a foreign Origin', { origin: FOREIGN_ORIGIN }],
      ['a foreign Origin beside a same-origin Referer', { origin: FOREIGN_ORIGIN, referer: 'SAME' }],
      ['neither Origin nor Referer', {}],
      ['Origin: null', { origin: 'null' }],
      ['Origin: null beside a same-origin Referer', { origin: 'null', referer: 'SAME' }],
      ['a foreign Referer and no Origin', { referer: `${FOREIGN_ORIGIN}/page` }],
      ['an Origin that differs only by port', { origin: 'PORT' }],
      ['an Origin that is not a URL', { origin: 'not a url' }],
      ['a javascript: Referer', { referer: 'javascript:alert(1)' }],
    ])('are refused with 403 csrf_rejected and change nothing, given %s', async (_description, given: Record<string, string>) => {
      const headers: Record<string, string> = { cookie };
      const { port } = new URL(server.baseUrl);
      for (const [name, value] of Object.entries(given)) {
        if (value === 'SAME') headers[name] = `${server.baseUrl}/page`;
        else if (value === 'PORT') headers[name] = server.baseUrl.replace(`:${port}`, `:${Number(port) + 1}`);
        else headers[name] = value;
      }
      const before = await assistantCount();
      const created = await request(server, 'POST', '/api/assistants', { headers, body: { name: 'Forged' } });
      expect(created.status, created.text).toBe(403);
      expect(created.body.error.code).toBe('csrf_rejected');
      expect(created.text).not.toContain('at ');
      expect(await assistantCount()).toBe(before);
    });

    it('are refused for PATCH and DELETE from another origin too, leaving the object as it was', async () => {
      const created = await request(server, 'POST', '/api/assistants', { token: adminToken, body: { name: 'Target' } });
      expect(created.status).toBe(201);
      const path = `/api/assistants/${created.body.id}`;
      const patched = await request(server, 'PATCH', path, { headers: { cookie, origin: FOREIGN_ORIGIN }, body: { name: 'Renamed' } });
      expect(patched.status).toBe(403);
      expect(patched.body.error.code).toBe('csrf_rejected');
      const deleted = await request(server, 'DELETE', path, { headers: { cookie, origin: FOREIGN_ORIGIN } });
      expect(deleted.status).toBe(403);
      const after = await request(server, 'GET', path, { token: adminToken });
      expect(after.status).toBe(200);
      expect(after.body.name).toBe('Target');
    });

    it('do not apply to bearer requests, which carry no ambient credential', async () => {
      const created = await request(server, 'POST', '/api/assistants', {
        token: adminToken,
        headers: { origin: FOREIGN_ORIGIN },
        body: { name: 'Made by a program' },
      });
      expect(created.status, created.text).toBe(201);
    });

    it('do not apply to reads: a GET with a foreign Origin is answered (CORS keeps the page from reading it)', async () => {
      const me = await request(server, 'GET', '/api/me', { headers: { cookie, origin: FOREIGN_ORIGIN } });
      expect(me.status).toBe(200);
      expect(me.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('logout', () => {
    it('is refused from another origin with the cookie, and the session stays live', async () => {
      const response = await request(server, 'POST', '/api/auth/logout', { headers: { cookie, origin: FOREIGN_ORIGIN } });
      expect(response.status).toBe(403);
      expect((await request(server, 'GET', '/api/me', { headers: { cookie } })).status).toBe(200);
    });

    it('with the cookie revokes the session and clears the cookie; the old cookie is then refused', async () => {
      const response = await request(server, 'POST', '/api/auth/logout', { headers: { cookie, origin: server.baseUrl } });
      expect(response.status).toBe(204);
      const cleared = sessionSetCookie(response);
      expect(cookiePair(cleared)).toBe('merino_session=');
      expect(attributes(cleared)).toEqual(expect.arrayContaining(['Max-Age=0', 'Path=/', 'HttpOnly', 'SameSite=Lax']));
      const me = await request(server, 'GET', '/api/me', { headers: { cookie } });
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe('invalid_token');
    });

    it('with a bearer token also revokes the session and clears the cookie', async () => {
      const answer = await loginAnswer(server);
      cookieValues.push(answer.body.token);
      const response = await request(server, 'POST', '/api/auth/logout', { token: answer.body.token });
      expect(response.status).toBe(204);
      expect(attributes(sessionSetCookie(response))).toContain('Max-Age=0');
      const me = await request(server, 'GET', '/api/me', { headers: { cookie: cookiePair(sessionSetCookie(answer)) } });
      expect(me.status).toBe(401);
    });
  });

  describe('hostile Cookie headers', () => {
    it.each([
      ['a malformed header', ';;==;merino_session;=;;'],
      ['a session cookie that is not a token', 'merino_session=garbage'],
      ['an API key in the session cookie', 'merino_session=mrk_abcdefghijklmnopqrstuvwxyz0123456789'],
      ['a session token with characters no token has', 'merino_session=mrs_abc"def<script>'],
      ['a well-formed but unknown session token', 'merino_session=mrs_unknownunknownunknownunknown0123456789ab'],
      ['an empty session cookie', 'merino_session='],
      ['a percent-encoded session cookie', 'merino_session=%6D%72%73_abc'],
    ])('answers 401 to %s', async (_description, header) => {
      const me = await request(server, 'GET', '/api/me', { headers: { cookie: header } });
      expect(me.status).toBe(401);
      expect(me.body.error.code).toMatch(/^(unauthenticated|invalid_token)$/);
    });

    it('answers 401 when the session cookie appears twice, even if one of them is valid', async () => {
      const answer = await loginAnswer(server);
      const valid = cookiePair(sessionSetCookie(answer));
      cookieValues.push(answer.body.token);
      const me = await request(server, 'GET', '/api/me', {
        headers: { cookie: `${valid}; merino_session=mrs_tossedbyasiblingsubdomain0123456789abc` },
      });
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe('invalid_token');
    });

    it('answers a header with many cookies without a 5xx, and still finds the session', async () => {
      const answer = await loginAnswer(server);
      cookieValues.push(answer.body.token);
      const many = Array.from({ length: 1000 }, (_unused, index) => `c${index}=v${index}`).join('; ');
      const me = await request(server, 'GET', '/api/me', { headers: { cookie: `${many}; ${cookiePair(sessionSetCookie(answer))}` } });
      expect(me.status).toBe(200);
    });

    it('answers a huge Cookie header with a 4xx', async () => {
      const me = await request(server, 'GET', '/api/me', { headers: { cookie: `merino_session=mrs_${'a'.repeat(40_000)}` } });
      expect(me.status).toBeGreaterThanOrEqual(400);
      expect(me.status).toBeLessThan(500);
    });

    it('answers a session cookie just under the header limit with 401', async () => {
      const me = await request(server, 'GET', '/api/me', { headers: { cookie: `merino_session=mrs_${'a'.repeat(12_000)}` } });
      expect(me.status).toBe(401);
    });

    it('answers a Cookie header with a NUL byte with a 4xx', async () => {
      const { host } = new URL(server.baseUrl);
      const status = await rawStatus(server, `GET /api/me HTTP/1.1\r\nHost: ${host}\r\nCookie: merino_session=mrs_a\u0000b\r\n\r\n`);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    });
  });

  describe('the logs', () => {
    it('never hold a session cookie’s value', () => {
      expect(cookieValues.length).toBeGreaterThanOrEqual(5);
      for (const value of cookieValues) expect(server.logLines.filter((line) => line.includes(value))).toEqual([]);
    });
  });
});

describe.each(TEST_DIALECTS)('the browser session cookie behind a trusted proxy on %s', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { TRUST_PROXY: 'true', CORS_ORIGINS: ALLOWED_CROSS_ORIGIN } });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('is Secure when the proxy says the request came over HTTPS', async () => {
    expect(attributes(sessionSetCookie(await loginAnswer(server, { 'x-forwarded-proto': 'https' })))).toContain('Secure');
  });

  it('takes its own origin from the forwarded host and protocol', async () => {
    const cookie = cookiePair(sessionSetCookie(await loginAnswer(server)));
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'merino.example.org' };
    const allowed = await request(server, 'POST', '/api/assistants', {
      headers: { cookie, ...forwarded, origin: 'https://merino.example.org' },
      body: { name: 'Behind the proxy' },
    });
    expect(allowed.status, allowed.text).toBe(201);
    const refused = await request(server, 'POST', '/api/assistants', {
      headers: { cookie, ...forwarded, origin: server.baseUrl },
      body: { name: 'Not the forwarded origin' },
    });
    expect(refused.status).toBe(403);
  });

  it('accepts a change from an origin in CORS_ORIGINS and refuses one from any other', async () => {
    const cookie = cookiePair(sessionSetCookie(await loginAnswer(server)));
    const allowed = await request(server, 'POST', '/api/assistants', {
      headers: { cookie, origin: ALLOWED_CROSS_ORIGIN },
      body: { name: 'From the allowed origin' },
    });
    expect(allowed.status, allowed.text).toBe(201);
    const refused = await request(server, 'POST', '/api/assistants', {
      headers: { cookie, origin: FOREIGN_ORIGIN },
      body: { name: 'From elsewhere' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('csrf_rejected');
  });
});
