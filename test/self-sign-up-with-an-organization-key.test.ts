/**
 * Self sign-up over real HTTP, on both stores (docs/sign-up.md): the right key makes an account in
 * the key's organization with the chosen role and signs it in; a wrong, rotated or closed key and
 * an email already used get the same 403 and message, so a refusal tells nothing about other
 * accounts; a domain outside the allowed one and a suspended organization are refused clearly; the
 * password rule is the admins'; a burst past SIGN_UP_ATTEMPTS_PER_ADDRESS_MAX gets 429 with
 * Retry-After; 50 sign-ups at once with one email make exactly one account; hostile bodies get
 * 4xx; neither the key nor the password reaches the audit log or the server's log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';

const ATTEMPTS_PER_ADDRESS = 5;
const PASSWORD = 'a-long-enough-password';

describe.each(TEST_DIALECTS)('self sign-up on %s', (dialect) => {
  let server: TestServer;
  let systemAdminToken: string;
  let organizationId: number;
  let organizationAdminToken: string;
  let addressCounter = 0;
  let emailCounter = 0;

  /** Each call comes from its own client address unless one is given, so the rate limit stays out of the way. */
  const nextAddress = () => {
    addressCounter += 1;
    return `10.${Math.floor(addressCounter / 250)}.${addressCounter % 250}.1`;
  };
  const signUp = (body: Record<string, unknown>, address = nextAddress()) =>
    request(server, 'POST', '/api/auth/sign-up', { body, headers: { 'x-forwarded-for': address } });
  const freshEmail = (domain = 'uni.test') => `person-${dialect}-${++emailCounter}@${domain}`;
  const asAdmin = (method: string, path: string, body?: unknown) =>
    request(server, method, path, { token: organizationAdminToken, ...(body !== undefined && { body }) });

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      environment: { SIGN_UP_ATTEMPTS_PER_ADDRESS_MAX: String(ATTEMPTS_PER_ADDRESS), SIGN_UP_WINDOW_SECONDS: '3600', TRUST_PROXY: 'true' },
    });
    systemAdminToken = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/organizations', {
      token: systemAdminToken,
      body: { name: 'Faculty of Signing Up', slug: 'faculty-sign-up' },
    });
    expect(created.status, created.text).toBe(201);
    organizationId = created.body.id;
    organizationAdminToken = (
      await createUser(server, systemAdminToken, { email: 'admin@sign-up.test', role: 'admin', organization_id: organizationId })
    ).token;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  async function openSignUp(settings: { allowed_email_domain?: string | null; role?: 'learner' | 'creator' } = {}): Promise<string> {
    await asAdmin('PUT', `/api/organizations/${organizationId}/sign-up`, { enabled: true, role: settings.role ?? 'learner', ...settings });
    const rotated = await asAdmin('POST', `/api/organizations/${organizationId}/sign-up/rotate`);
    expect(rotated.status, rotated.text).toBe(200);
    return rotated.body.sign_up_key as string;
  }

  function expectRefused(response: JsonResponse): void {
    expect(response.status, response.text).toBe(403);
    expect(response.body.error.code).toBe('sign_up_refused');
  }

  it('is off by default, with no key', async () => {
    const view = await asAdmin('GET', `/api/organizations/${organizationId}/sign-up`);
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      organization_id: organizationId,
      enabled: false,
      allowed_email_domain: null,
      role: 'learner',
      has_key: false,
      key_created_at: null,
    });
  });

  it('makes an account in the key’s organization with the chosen role, signs it in and sets the session cookie', async () => {
    const key = await openSignUp({ role: 'creator', allowed_email_domain: null });
    const email = freshEmail();
    const response = await signUp({ name: 'Ada Lovelace', email, password: PASSWORD, sign_up_key: key });
    expect(response.status, response.text).toBe(201);
    expect(response.headers.get('set-cookie')).toMatch(/^merino_session=/);
    expect(response.body.user).toMatchObject({ email, name: 'Ada Lovelace', organization_id: organizationId, role: 'creator' });
    const me = await request(server, 'GET', '/api/me', { token: response.body.token });
    expect(me.body).toMatchObject({ email, organization_id: organizationId, role: 'creator', capabilities: { create_assistants: true } });
    const login = await request(server, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    const audit = await listAuditEntries(server.store.db, { action: 'user.sign_up', targetId: String(response.body.user.id) });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.organization_id).toBe(organizationId);
  });

  it('takes the key however it is typed: lower case, without hyphens, with spaces', async () => {
    const key = await openSignUp();
    const typed = ` ${key.toLowerCase().replaceAll('-', ' ')} `;
    const response = await signUp({ name: 'Typed', email: freshEmail(), password: PASSWORD, sign_up_key: typed });
    expect(response.status, response.text).toBe(201);
  });

  it('refuses a wrong key, a rotated key, a closed sign-up and an email already used with one status and one message', async () => {
    const oldKey = await openSignUp();
    const taken = freshEmail();
    expect((await signUp({ name: 'First', email: taken, password: PASSWORD, sign_up_key: oldKey })).status).toBe(201);
    const key = await openSignUp();
    const refusals = [
      await signUp({ name: 'Wrong', email: freshEmail(), password: PASSWORD, sign_up_key: 'AAAA-BBBB-CCCC-DDDD-EEEE' }),
      await signUp({ name: 'Rotated', email: freshEmail(), password: PASSWORD, sign_up_key: oldKey }),
      await signUp({ name: 'Again', email: taken, password: PASSWORD, sign_up_key: key }),
      await signUp({ name: 'Again', email: taken.toUpperCase(), password: PASSWORD, sign_up_key: key }),
      await signUp({ name: 'Admin', email: 'admin@sign-up.test', password: PASSWORD, sign_up_key: key }),
    ];
    await asAdmin('PUT', `/api/organizations/${organizationId}/sign-up`, { enabled: false, role: 'learner' });
    refusals.push(await signUp({ name: 'Closed', email: freshEmail(), password: PASSWORD, sign_up_key: key }));
    for (const refusal of refusals) expectRefused(refusal);
    // Byte for byte the same body, but for the request id.
    const bodies = new Set(refusals.map((refusal) => JSON.stringify({ ...refusal.body.error, request_id: undefined })));
    expect(bodies.size).toBe(1);
    const reasons = (await listAuditEntries(server.store.db, { action: 'auth.sign_up_refused' })).map(
      (entry) => (JSON.parse(entry.details) as { reason: string }).reason,
    );
    expect(reasons).toEqual(expect.arrayContaining(['unknown_key', 'email_taken', 'closed']));
  });

  it('refuses an email outside the allowed domain, naming the domain, and accepts one inside it', async () => {
    const key = await openSignUp({ allowed_email_domain: 'Uni.Test' });
    const outside = await signUp({ name: 'Out', email: freshEmail('elsewhere.test'), password: PASSWORD, sign_up_key: key });
    expect(outside.status).toBe(403);
    expect(outside.body.error.code).toBe('email_domain_not_allowed');
    expect(outside.body.error.message).toContain('uni.test');
    expect(outside.body.error.details).toEqual({ allowed_email_domain: 'uni.test' });
    const subdomain = await signUp({ name: 'Sub', email: freshEmail('mail.uni.test'), password: PASSWORD, sign_up_key: key });
    expect(subdomain.body.error.code).toBe('email_domain_not_allowed');
    const inside = await signUp({ name: 'In', email: freshEmail('UNI.test'), password: PASSWORD, sign_up_key: key });
    expect(inside.status, inside.text).toBe(201);
    await openSignUp({ allowed_email_domain: null });
  });

  it('holds new passwords to the rule for accounts admins create', async () => {
    const key = await openSignUp();
    const response = await signUp({ name: 'Short', email: freshEmail(), password: 'short', sign_up_key: key });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'weak_password', param: 'password' });
  });

  it('refuses sign-up to a suspended organization, and opens again when it is reactivated', async () => {
    const key = await openSignUp();
    const suspend = (status: string) =>
      request(server, 'PATCH', `/api/organizations/${organizationId}`, { token: systemAdminToken, body: { status } });
    expect((await suspend('suspended')).status).toBe(200);
    const refused = await signUp({ name: 'Late', email: freshEmail(), password: PASSWORD, sign_up_key: key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('organization_suspended');
    expect((await suspend('active')).status).toBe(200);
    expect((await signUp({ name: 'Later', email: freshEmail(), password: PASSWORD, sign_up_key: key })).status).toBe(201);
  });

  it('answers 429 with Retry-After to a burst from one address past the limit, counting every attempt', async () => {
    const key = await openSignUp();
    const address = '198.51.100.7';
    const answers = await Promise.all(
      Array.from({ length: ATTEMPTS_PER_ADDRESS * 3 }, (_, index) =>
        signUp({ name: 'Burst', email: freshEmail(), password: PASSWORD, sign_up_key: index % 2 === 0 ? key : 'WRONG-KEY' }, address),
      ),
    );
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited).toHaveLength(ATTEMPTS_PER_ADDRESS * 2);
    expect(answers.filter((answer) => answer.status !== 429)).toHaveLength(ATTEMPTS_PER_ADDRESS);
    for (const answer of limited) {
      expect(answer.body.error.code).toBe('rate_limited');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // The right key from the same address is refused too until the window ends.
    expect((await signUp({ name: 'After', email: freshEmail(), password: PASSWORD, sign_up_key: key }, address)).status).toBe(429);
  });

  it('makes exactly one account from 50 sign-ups at once with the same email', async () => {
    const key = await openSignUp();
    const email = freshEmail();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => signUp({ name: `Racer ${index}`, email, password: PASSWORD, sign_up_key: key })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 403)).toHaveLength(49);
    for (const answer of answers.filter((candidate) => candidate.status === 403)) expectRefused(answer);
    const rows = await server.store.db.selectFrom('users').select('id').where('email', '=', email).execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses hostile bodies with 4xx naming the problem, and makes no account', async () => {
    const key = await openSignUp();
    const valid = { name: 'Valid', email: freshEmail(), password: PASSWORD, sign_up_key: key };
    const hostile: Array<Record<string, unknown>> = [
      { ...valid, sign_up_key: 'K'.repeat(101) },
      { ...valid, sign_up_key: '' },
      { ...valid, name: '' },
      { ...valid, name: 'N'.repeat(201) },
      { ...valid, email: 'not-an-email' },
      { ...valid, email: 42 },
      { ...valid, password: 'P'.repeat(1025) },
      { ...valid, role: 'admin' },
      { ...valid, organization_id: 1 },
      { name: 'Missing key', email: freshEmail(), password: PASSWORD },
    ];
    for (const body of hostile) {
      const response = await signUp(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.error.code).toBe('invalid_body');
    }
    const raw = await request(server, 'POST', '/api/auth/sign-up', { rawBody: '{"name":', headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(raw.status).toBe(400);
    const rows = await server.store.db.selectFrom('users').select('id').where('email', '=', valid.email).execute();
    expect(rows).toHaveLength(0);
  });

  it('writes neither a key nor a password into the audit log or the server log', async () => {
    const key = await openSignUp();
    await signUp({ name: 'Quiet', email: freshEmail(), password: PASSWORD, sign_up_key: key });
    await signUp({ name: 'Quiet', email: freshEmail(), password: PASSWORD, sign_up_key: 'SECRET-GUESS-1234' });
    const audit = JSON.stringify(await listAuditEntries(server.store.db));
    const logs = server.logLines.join('\n');
    for (const secret of [key, key.replaceAll('-', ''), 'SECRET-GUESS-1234', PASSWORD]) {
      expect(audit).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
