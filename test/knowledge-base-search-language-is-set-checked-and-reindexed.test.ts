/**
 * Proves over HTTP that a knowledge base's `search_language` is taken from its language tag unless
 * given, defaults to english, is refused with a 400 naming it when not one of the languages, is
 * changed only by the owner (a same-organization creator reads it but gets 403, a learner and
 * another organization's user 403/404, anonymous 401), that a change shows a reindex that the
 * ingestion runner finishes, and that 50 changes sent at once all land. On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { expectChangedByNoOneButTheOwner, sharedKnowledgeBaseSuite } from './support/shared-knowledge-base.js';
import { request } from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';

describe.each(TEST_DIALECTS)('a knowledge base search language on %s', (dialect) => {
  const world = sharedKnowledgeBaseSuite(dialect);

  it('comes from the language tag unless given, english otherwise, with a ready index', async () => {
    const read = await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.owner });
    expect(read.body.search_language).toBe('catalan');
    expect(read.body.search_index).toEqual({ state: 'ready', chunks_done: 0, chunks_total: 0 });
    const given = await request(world.server, 'POST', '/api/knowledge-bases', {
      token: world.owner,
      body: { name: 'Given', language: 'es', search_language: 'none' },
    });
    expect(given.body.search_language).toBe('none');
    const untagged = await request(world.server, 'POST', '/api/knowledge-bases', { token: world.owner, body: { name: 'Untagged' } });
    expect(untagged.body.search_language).toBe('english');
    const japanese = await request(world.server, 'POST', '/api/knowledge-bases', {
      token: world.owner,
      body: { name: 'Nihongo', language: 'ja' },
    });
    expect(japanese.body.search_language).toBe('english');
  });

  it('is changed by the owner, which reindexes the knowledge base in the background', async () => {
    const created = await request(world.server, 'POST', '/api/knowledge-bases', { token: world.owner, body: { name: 'Ikasgaiak' } });
    const path = `/api/knowledge-bases/${created.body.id as number}`;
    const changed = await request(world.server, 'PATCH', path, { token: world.owner, body: { search_language: 'basque' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.search_language).toBe('basque');
    let state = changed.body.search_index as { state: string };
    for (let poll = 0; poll < 200 && state.state !== 'ready'; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = (await request(world.server, 'GET', path, { token: world.owner })).body.search_index as { state: string };
    }
    expect(state).toEqual({ state: 'ready', chunks_done: 0, chunks_total: 0 });
  });

  it('refuses what is not a search language with a 400 naming the field', async () => {
    for (const searchLanguage of ['English', 'en', 'klingon', '', 42, null, '<script>', "english'; drop table kb_postings; --"]) {
      const created = await request(world.server, 'POST', '/api/knowledge-bases', {
        token: world.owner,
        body: { name: 'Hostile', search_language: searchLanguage },
      });
      expect(created.status, `${String(searchLanguage)}: ${created.text}`).toBe(400);
      expect(created.text).toContain('search_language');
      const patched = await request(world.server, 'PATCH', `/api/knowledge-bases/${world.sharedId}`, {
        token: world.owner,
        body: { search_language: searchLanguage },
      });
      expect(patched.status, patched.text).toBe(400);
    }
    expect(
      (await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.owner })).body.search_language,
    ).toBe('catalan');
  });

  it('is read by a same-organization creator but changed by no one else', async () => {
    const seen = await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.colleague });
    expect(seen.status).toBe(200);
    expect(seen.body.search_language).toBe('catalan');
    await expectChangedByNoOneButTheOwner(world, { search_language: 'spanish' });
    expect(
      (await request(world.server, 'GET', `/api/knowledge-bases/${world.sharedId}`, { token: world.owner })).body.search_language,
    ).toBe('catalan');
  });

  it('takes 50 changes sent at once', async () => {
    const languages = ['english', 'spanish', 'catalan', 'basque', 'none'];
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        request(world.server, 'POST', '/api/knowledge-bases', { token: world.owner, body: { name: `Batch ${index}` } }),
      ),
    );
    expect(created.map((response) => response.status)).toEqual(Array(50).fill(201));
    const patched = await Promise.all(
      created.map((response, index) =>
        request(world.server, 'PATCH', `/api/knowledge-bases/${response.body.id as number}`, {
          token: world.owner,
          body: { search_language: languages[index % 5] },
        }),
      ),
    );
    expect(patched.map((response) => response.status)).toEqual(Array(50).fill(200));
    expect(patched.map((response) => response.body.search_language)).toEqual(created.map((_, index) => languages[index % 5]));
  });
});
