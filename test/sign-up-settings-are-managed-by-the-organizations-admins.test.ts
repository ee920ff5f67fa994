/**
 * An organization's self sign-up settings over real HTTP, on both stores (docs/sign-up.md): only
 * the organization's own admins and system admins read and change them (another organization's
 * admin learns nothing: 404; its creators and learners get 403; anonymous 401); the key is shown
 * once, in the answer that made it, and never again; changes are audited without the key;
 * hostile bodies get 400 naming the field; 50 rotations at once leave exactly one working key,
 * and 50 switch-ons at once make exactly one key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { expectStatusesByRole, organizationRoles, type OrganizationRole } from './support/two-organizations.js';

const PASSWORD = 'a-long-enough-password';

describe.each(TEST_DIALECTS)('sign-up settings on %s', (dialect) => {
  let server: TestServer;
  let organizationA: number;
  let organizationB: number;
  let tokens: Map<OrganizationRole, string | undefined>;
  let counter = 0;

  const as = (role: OrganizationRole, method: string, path: string, body?: unknown) =>
    request(server, method, path, { token: tokens.get(role), ...(body !== undefined && { body }) });
  const signUp = (key: string) =>
    request(server, 'POST', '/api/auth/sign-up', {
      body: { name: 'Newcomer', email: `newcomer-${dialect}-${++counter}@uni.test`, password: PASSWORD, sign_up_key: key },
      headers: { 'x-forwarded-for': `10.9.${counter % 250}.${Math.floor(counter / 250) + 1}` },
    });

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { TRUST_PROXY: 'true' } });
    ({ organizationA, organizationB, tokens } = await organizationRoles(server, await loginAsAdmin(server)));
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it("lets only the organization's admins and system admins read, change and rotate its sign-up", async () => {
    const path = `/api/organizations/${organizationA}/sign-up`;
    const off = { enabled: false, role: 'learner' };
    await expectStatusesByRole((role) => as(role, 'GET', path), [200, 200, 404, 403, 403, 401]);
    await expectStatusesByRole((role) => as(role, 'PUT', path, off), [200, 200, 404, 403, 403, 401]);
    await expectStatusesByRole((role) => as(role, 'POST', `${path}/rotate`), [200, 200, 404, 403, 403, 401]);
    // The other organization's, seen from the other side.
    await expectStatusesByRole((role) => as(role, 'GET', `/api/organizations/${organizationB}/sign-up`), [200, 404, 200, 404, 404, 401]);
  });

  it('shows the key once, in the answer that made it, and never in a read', async () => {
    const path = `/api/organizations/${organizationB}/sign-up`;
    const on = await as('admin of B', 'PUT', path, { enabled: true, role: 'creator', allowed_email_domain: 'uni.test' });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ enabled: true, role: 'creator', allowed_email_domain: 'uni.test', has_key: true });
    const firstKey = on.body.sign_up_key as string;
    expect(firstKey).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$/);
    const again = await as('admin of B', 'PUT', path, { enabled: true, role: 'learner', allowed_email_domain: 'uni.test' });
    expect(again.body.sign_up_key).toBeUndefined();
    const read = await as('admin of B', 'GET', path);
    expect(read.body.sign_up_key).toBeUndefined();
    expect(read.text).not.toContain(firstKey);
    expect(read.body).toMatchObject({ enabled: true, role: 'learner', has_key: true });
    expect((await signUp(firstKey)).status).toBe(201);
    const rotated = await as('admin of B', 'POST', `${path}/rotate`);
    expect(rotated.body.sign_up_key).not.toBe(firstKey);
    expect((await signUp(firstKey)).status).toBe(403);
    expect((await signUp(rotated.body.sign_up_key)).status).toBe(201);
    const audit = await listAuditEntries(server.store.db);
    const actions = audit.filter((entry) => entry.organization_id === organizationB).map((entry) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['organization.sign_up_update', 'organization.sign_up_key_rotate']));
    expect(JSON.stringify(audit)).not.toContain(firstKey);
    expect(JSON.stringify(audit)).not.toContain(rotated.body.sign_up_key);
  });

  it('refuses hostile input with 400 naming the problem, and unknown organizations with 404', async () => {
    const path = `/api/organizations/${organizationA}/sign-up`;
    const hostile: unknown[] = [
      { enabled: true, role: 'admin' },
      { enabled: 'yes', role: 'learner' },
      { enabled: true },
      { enabled: true, role: 'learner', allowed_email_domain: '-bad-.edu' },
      { enabled: true, role: 'learner', allowed_email_domain: 'a..b' },
      { enabled: true, role: 'learner', allowed_email_domain: 'localhost' },
      { enabled: true, role: 'learner', allowed_email_domain: 'uni edu' },
      { enabled: true, role: 'learner', allowed_email_domain: `${'a'.repeat(64)}.edu` },
      { enabled: true, role: 'learner', allowed_email_domain: 'x'.repeat(254) },
      { enabled: true, role: 'learner', sign_up_key: 'CHOSEN-BY-ME' },
      [],
    ];
    for (const body of hostile) {
      const response = await as('admin of A', 'PUT', path, body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.error.code).toBe('invalid_body');
    }
    const domain = await as('admin of A', 'PUT', path, { enabled: true, role: 'learner', allowed_email_domain: 'a..b' });
    expect(domain.body.error.param).toBe('allowed_email_domain');
    for (const id of ['0', '-1', 'abc', '99999999999999999999'])
      expect((await as('system admin', 'GET', `/api/organizations/${id}/sign-up`)).status).toBe(400);
    expect((await as('system admin', 'GET', '/api/organizations/999999/sign-up')).status).toBe(404);
    expect((await as('system admin', 'POST', '/api/organizations/999999/sign-up/rotate')).status).toBe(404);
  });

  it('leaves exactly one working key after 50 rotations at once, and makes one key from 50 switch-ons at once', async () => {
    const created = await as('system admin', 'POST', '/api/organizations', { name: 'Faculty C', slug: `faculty-c-${dialect}` });
    const path = `/api/organizations/${created.body.id}/sign-up`;
    const switchOns = await Promise.all(
      Array.from({ length: 50 }, () => as('system admin', 'PUT', path, { enabled: true, role: 'learner' })),
    );
    expect(switchOns.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    const made = switchOns.filter((answer) => answer.body.sign_up_key !== undefined);
    expect(made).toHaveLength(1);
    expect((await signUp(made[0]!.body.sign_up_key)).status).toBe(201);
    const rotations = await Promise.all(Array.from({ length: 50 }, () => as('system admin', 'POST', `${path}/rotate`)));
    expect(rotations.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    const keys = rotations.map((answer) => answer.body.sign_up_key as string);
    expect(new Set(keys).size).toBe(50);
    let working = 0;
    for (const key of keys) if ((await signUp(key)).status === 201) working += 1;
    expect(working).toBe(1);
    // Fifty sign-ups one after another each hash a password, slow on purpose: far past the default 30 s under load.
  }, 120_000);
});
