/**
 * Defect 13 over real HTTP on both dialects: an organization admin's `GET /api/users` listed the
 * system admin while `GET /api/users/{id}` answered 404. Listing and reading now come from one
 * permission decision, so for every caller and every account in the store: the account is listed
 * exactly when reading it answers 200 (and changing it is allowed) — whatever the page size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('user lists and reads by id on %s', (dialect) => {
  let server: TestServer;
  const tokens: Record<string, string> = {};
  let everyUserId: number[];

  async function listedIds(token: string): Promise<number[]> {
    const ids: number[] = [];
    // A small page size walks several pages, so paging applies the same scope as the first page.
    for (let offset = 0; ; offset += 2) {
      const page = await request(server, 'GET', `/api/users?limit=2&offset=${offset}`, { token });
      expect(page.status, page.text).toBe(200);
      ids.push(...page.body.items.map((item: { id: number }) => item.id));
      if (offset + 2 >= page.body.total) {
        expect(ids).toHaveLength(page.body.total);
        return ids;
      }
    }
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    tokens.system = await loginAsAdmin(server);
    const systemOrganizationId = (await request(server, 'GET', '/api/me', { token: tokens.system })).body.organization_id as number;
    const organizationB = await insertOrganization(server.store.db, `organization-b-${dialect}`, 'Organization B');
    // An organization admin in the system admin's own organization: the case the defect was found in.
    tokens.systemOrganizationAdmin = (
      await createUser(server, tokens.system, {
        email: 'admin.system-org@merino.test',
        role: 'admin',
        organization_id: systemOrganizationId,
      })
    ).token;
    tokens.organizationBAdmin = (
      await createUser(server, tokens.system, { email: 'admin.b@merino.test', role: 'admin', organization_id: organizationB })
    ).token;
    tokens.creator = (
      await createUser(server, tokens.system, { email: 'creator@merino.test', role: 'creator', organization_id: systemOrganizationId })
    ).token;
    tokens.learnerB = (
      await createUser(server, tokens.system, { email: 'learner.b@merino.test', role: 'learner', organization_id: organizationB })
    ).token;
    const secondSystemAdmin = await request(server, 'POST', '/api/users', {
      token: tokens.system,
      body: {
        email: 'second.system@merino.test',
        password: 'second-system-password',
        role: 'creator',
        organization_id: organizationB,
        is_system_admin: true,
      },
    });
    expect(secondSystemAdmin.status, secondSystemAdmin.text).toBe(201);
    everyUserId = (await server.store.db.selectFrom('users').select('id').orderBy('id').execute()).map((row) => row.id);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it.each(['system', 'systemOrganizationAdmin', 'organizationBAdmin'])('lists exactly the accounts %s may read by id', async (caller) => {
    const listed = await listedIds(tokens[caller]!);
    const readable: number[] = [];
    for (const id of everyUserId) {
      const read = await request(server, 'GET', `/api/users/${id}`, { token: tokens[caller] });
      expect([200, 404], read.text).toContain(read.status);
      if (read.status === 200) readable.push(id);
    }
    expect(listed.sort((a, b) => a - b)).toEqual(readable);
  });

  it('shows a system admin to no organization admin, in their own organization or any other, in lists, reads or changes', async () => {
    const systemAdmins = (await server.store.db.selectFrom('users').select('id').where('is_system_admin', '=', 1).execute()).map(
      (row) => row.id,
    );
    expect(systemAdmins).toHaveLength(2);
    for (const caller of ['systemOrganizationAdmin', 'organizationBAdmin']) {
      expect(await listedIds(tokens[caller]!)).not.toEqual(expect.arrayContaining([systemAdmins[0]]));
      expect(await listedIds(tokens[caller]!)).not.toEqual(expect.arrayContaining([systemAdmins[1]]));
      for (const id of systemAdmins) {
        expect((await request(server, 'GET', `/api/users/${id}`, { token: tokens[caller] })).status).toBe(404);
        expect((await request(server, 'PATCH', `/api/users/${id}`, { token: tokens[caller], body: { name: 'Renamed' } })).status).toBe(404);
      }
    }
  });

  it('counts in `total` only what the list may show, also when searching', async () => {
    const searched = await request(server, 'GET', '/api/users?q=system', { token: tokens.systemOrganizationAdmin });
    expect(searched.status).toBe(200);
    expect(searched.body.items.map((item: { email: string }) => item.email)).toEqual(['admin.system-org@merino.test']);
    expect(searched.body.total).toBe(1);
  });

  it('lets neither creators nor learners list users (403), nor read anyone by id (404)', async () => {
    for (const caller of ['creator', 'learnerB']) {
      expect((await request(server, 'GET', '/api/users', { token: tokens[caller] })).status).toBe(403);
      for (const id of everyUserId) expect((await request(server, 'GET', `/api/users/${id}`, { token: tokens[caller] })).status).toBe(404);
    }
  });
});
