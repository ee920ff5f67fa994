/**
 * Proves that a knowledge base carries an optional language (a BCP-47 tag): set at creation and by
 * PATCH, stored in canonical case, cleared with null, shown in reads and lists; refused with a 400
 * naming `language` when it is not a tag; changed only by the owner (a same-organization creator
 * sees a shared one's language but cannot change it, a learner and another organization's user get
 * 404, anonymous 401); and 50 changes sent at once all land. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { fourRolesInTwoOrganizations } from './support/two-organizations.js';

describe.each(TEST_DIALECTS)('a knowledge base language on %s', (dialect) => {
  let server: TestServer;
  let owner: string;
  let colleague: string;
  let learner: string;
  let outsider: string;
  let sharedId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    ({ owner, colleague, learner, outsider } = await fourRolesInTwoOrganizations(server, adminToken));
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Apunts', language: 'ca' } });
    expect(created.status, created.text).toBe(201);
    sharedId = created.body.id as number;
    const shared = await request(server, 'PATCH', `/api/knowledge-bases/${sharedId}`, {
      token: owner,
      body: { visibility: 'organization' },
    });
    expect(shared.status, shared.text).toBe(200);
  });

  afterAll(async () => {
    await server.close();
  });

  it('is set at creation, canonical in case, absent meaning none, and shown in reads and lists', async () => {
    const read = await request(server, 'GET', `/api/knowledge-bases/${sharedId}`, { token: owner });
    expect(read.body.language).toBe('ca');
    const mixedCase = await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Notas', language: 'PT-br' } });
    expect(mixedCase.status, mixedCase.text).toBe(201);
    expect(mixedCase.body.language).toBe('pt-BR');
    const none = await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Untagged' } });
    expect(none.body.language).toBeNull();
    const list = await request(server, 'GET', '/api/knowledge-bases', { token: owner });
    const languages = Object.fromEntries(
      (list.body.items as { name: string; language: string | null }[]).map((item) => [item.name, item.language]),
    );
    expect(languages).toMatchObject({ Apunts: 'ca', Notas: 'pt-BR', Untagged: null });
  });

  it('is changed and cleared by the owner with PATCH', async () => {
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Ikasgaiak' } });
    const path = `/api/knowledge-bases/${created.body.id as number}`;
    const set = await request(server, 'PATCH', path, { token: owner, body: { language: 'eu' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.language).toBe('eu');
    const renamed = await request(server, 'PATCH', path, { token: owner, body: { name: 'Ikasgaiak 2' } });
    expect(renamed.body.language).toBe('eu');
    const cleared = await request(server, 'PATCH', path, { token: owner, body: { language: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.language).toBeNull();
  });

  it('refuses what is not a language tag with a 400 naming the field', async () => {
    for (const language of ['english please', 'e', 'en_US', `en-${'a'.repeat(40)}`, '<script>', 'en--us', 42, 'x-klingon']) {
      const created = await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Hostile', language } });
      expect(created.status, `${String(language)}: ${created.text}`).toBe(400);
      expect(created.text).toContain('language');
      const patched = await request(server, 'PATCH', `/api/knowledge-bases/${sharedId}`, { token: owner, body: { language } });
      expect(patched.status, patched.text).toBe(400);
    }
    const read = await request(server, 'GET', `/api/knowledge-bases/${sharedId}`, { token: owner });
    expect(read.body.language).toBe('ca');
  });

  it('is read by a same-organization creator but changed by no one else', async () => {
    const seen = await request(server, 'GET', `/api/knowledge-bases/${sharedId}`, { token: colleague });
    expect(seen.status).toBe(200);
    expect(seen.body.language).toBe('ca');
    const byColleague = await request(server, 'PATCH', `/api/knowledge-bases/${sharedId}`, { token: colleague, body: { language: 'es' } });
    expect(byColleague.status).toBe(403);
    for (const token of [learner, outsider]) {
      const patched = await request(server, 'PATCH', `/api/knowledge-bases/${sharedId}`, { token, body: { language: 'es' } });
      expect([403, 404]).toContain(patched.status);
    }
    const anonymous = await request(server, 'PATCH', `/api/knowledge-bases/${sharedId}`, { body: { language: 'es' } });
    expect(anonymous.status).toBe(401);
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: learner, body: { name: 'Mine', language: 'en' } });
    expect(created.status).toBe(403);
    expect((await request(server, 'GET', `/api/knowledge-bases/${sharedId}`, { token: owner })).body.language).toBe('ca');
  });

  it('takes 50 creations and 50 changes sent at once', async () => {
    const tags = ['en', 'es', 'ca', 'eu', 'fr'];
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: `Batch ${index}`, language: tags[index % 5] } }),
      ),
    );
    expect(created.map((response) => response.status)).toEqual(Array(50).fill(201));
    const patched = await Promise.all(
      created.map((response, index) =>
        request(server, 'PATCH', `/api/knowledge-bases/${response.body.id as number}`, {
          token: owner,
          body: { language: tags[(index + 1) % 5] },
        }),
      ),
    );
    expect(patched.map((response) => response.status)).toEqual(Array(50).fill(200));
    expect(patched.map((response) => response.body.language)).toEqual(created.map((_, index) => tags[(index + 1) % 5]));
  });
});
