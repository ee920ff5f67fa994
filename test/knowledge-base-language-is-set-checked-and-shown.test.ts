/**
 * Proves that a knowledge base carries an optional language (a BCP-47 tag): set at creation and by
 * PATCH, stored in canonical case, cleared with null, shown in reads and lists; refused with a 400
 * naming `language` when it is not a tag; changed only by the owner (a same-organization creator
 * sees a shared one's language but cannot change it, a learner and another organization's user get
 * 404, anonymous 401); and 50 changes sent at once all land. On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { expectChangedByNoOneButTheOwner, sharedKnowledgeBaseSuite } from './support/shared-knowledge-base.js';
import { request } from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';

describe.each(TEST_DIALECTS)('a knowledge base language on %s', (dialect) => {
  const world = sharedKnowledgeBaseSuite(dialect);

  it('is set at creation, canonical in case, absent meaning none, and shown in reads and lists', async () => {
    const read = await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.owner });
    expect(read.body.language).toBe('ca');
    const mixedCase = await request(world.server, 'POST', '/api/knowledge-bases', {
      token: world.owner,
      body: { name: 'Notas', language: 'PT-br' },
    });
    expect(mixedCase.status, mixedCase.text).toBe(201);
    expect(mixedCase.body.language).toBe('pt-BR');
    const none = await request(world.server, 'POST', '/api/knowledge-bases', { token: world.owner, body: { name: 'Untagged' } });
    expect(none.body.language).toBeNull();
    const list = await request(world.server, 'GET', '/api/knowledge-bases', { token: world.owner });
    const languages = Object.fromEntries(
      (list.body.items as { name: string; language: string | null }[]).map((item) => [item.name, item.language]),
    );
    expect(languages).toMatchObject({ Apunts: 'ca', Notas: 'pt-BR', Untagged: null });
  });

  it('is changed and cleared by the owner with PATCH', async () => {
    const created = await request(world.server, 'POST', '/api/knowledge-bases', { token: world.owner, body: { name: 'Ikasgaiak' } });
    const path = `/api/knowledge-bases/${created.body.id as number}`;
    const set = await request(world.server, 'PATCH', path, { token: world.owner, body: { language: 'eu' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.language).toBe('eu');
    const renamed = await request(world.server, 'PATCH', path, { token: world.owner, body: { name: 'Ikasgaiak 2' } });
    expect(renamed.body.language).toBe('eu');
    const cleared = await request(world.server, 'PATCH', path, { token: world.owner, body: { language: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.language).toBeNull();
  });

  it('refuses what is not a language tag with a 400 naming the field', async () => {
    for (const language of ['english please', 'e', 'en_US', `en-${'a'.repeat(40)}`, '<script>', 'en--us', 42, 'x-klingon']) {
      const created = await request(world.server, 'POST', '/api/knowledge-bases', {
        token: world.owner,
        body: { name: 'Hostile', language },
      });
      expect(created.status, `${String(language)}: ${created.text}`).toBe(400);
      expect(created.text).toContain('language');
      const patched = await request(world.server, 'PATCH', `/api/knowledge-bases/${world.sharedId}`, {
        token: world.owner,
        body: { language },
      });
      expect(patched.status, patched.text).toBe(400);
    }
    const read = await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.owner });
    expect(read.body.language).toBe('ca');
  });

  it('is read by a same-organization creator but changed by no one else', async () => {
    const seen = await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.colleague });
    expect(seen.status).toBe(200);
    expect(seen.body.language).toBe('ca');
    await expectChangedByNoOneButTheOwner(world, { language: 'es' });
    const created = await request(world.server, 'POST', '/api/knowledge-bases', {
      token: world.learner,
      body: { name: 'Mine', language: 'en' },
    });
    expect(created.status).toBe(403);
    expect((await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.owner })).body.language).toBe('ca');
  });

  it('takes 50 creations and 50 changes sent at once', async () => {
    const tags = ['en', 'es', 'ca', 'eu', 'fr'];
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        request(world.server, 'POST', '/api/knowledge-bases', {
          token: world.owner,
          body: { name: `Batch ${index}`, language: tags[index % 5] },
        }),
      ),
    );
    expect(created.map((response) => response.status)).toEqual(Array(50).fill(201));
    const patched = await Promise.all(
      created.map((response, index) =>
        request(world.server, 'PATCH', `/api/knowledge-bases/${response.body.id as number}`, {
          token: world.owner,
          body: { language: tags[(index + 1) % 5] },
        }),
      ),
    );
    expect(patched.map((response) => response.status)).toEqual(Array(50).fill(200));
    expect(patched.map((response) => response.body.language)).toEqual(created.map((_, index) => tags[(index + 1) % 5]));
  });
});
