/**
 * The foundation's acceptance walk, over real HTTP on both stores: the admin logs in and creates
 * a creator; the creator makes an API key and, with it, a classic and a multi-tool assistant,
 * shares, publishes, exports and re-imports them; a user without access gets 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('the foundation walk-through on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let creator: CreatedUser;
  let colleague: CreatedUser;
  let outsider: CreatedUser;
  let apiKey: string;
  const ids: Record<'classic' | 'multiTool', number> = { classic: 0, multiTool: 0 };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    creator = await createUser(server, adminToken, { email: 'teacher@school.test', role: 'creator' });
    colleague = await createUser(server, adminToken, { email: 'colleague@school.test', role: 'learner' });
    const otherOrganization = await insertOrganization(server.store.db, 'other-school', 'Other school');
    outsider = await createUser(server, adminToken, { email: 'outsider@other.test', role: 'creator', organization_id: otherOrganization });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('gives the creator an API key that works as a bearer token', async () => {
    const created = await request(server, 'POST', '/api/api-keys', { token: creator.token, body: { name: 'course scripts' } });
    expect(created.status).toBe(201);
    apiKey = created.body.key;
    const me = await request(server, 'GET', '/api/me', { token: apiKey });
    expect(me.body).toMatchObject({ email: 'teacher@school.test', role: 'creator', credential: 'api_key' });
  });

  it('creates a classic and a multi-tool assistant with the API key', async () => {
    const classic = await request(server, 'POST', '/api/assistants', {
      token: apiKey,
      body: {
        name: 'Biology tutor',
        system_prompt: 'You are a patient biology tutor.',
        prompt_template: 'Context: {context}\n\nQuestion: {user_input}',
        metadata: JSON.stringify({ connector: 'openai', llm: 'gpt-4o-mini', prompt_processor: 'simple_augment', rag_processor: 'no_rag' }),
        rag_collections: 'kb-cells,kb-genetics',
        rag_top_k: 4,
      },
    });
    const multiTool = await request(server, 'POST', '/api/assistants', {
      token: apiKey,
      body: {
        name: 'Essay coach',
        metadata: {
          assistant_type: 'multi_tool',
          prompt_processor: 'multi_augment',
          tools: ['no_rag', { plugin: 'single_file', config: { file_path: 'notes/essay-guide.md' } }],
        },
      },
    });
    expect([classic.status, multiTool.status]).toEqual([201, 201]);
    expect(classic.body).toMatchObject({
      assistant_type: 'classic',
      owner: 'teacher@school.test',
      rag_collections: ['kb-cells', 'kb-genetics'],
    });
    expect(multiTool.body.assistant_type).toBe('multi_tool');
    expect(multiTool.body.metadata.tools[1]).toEqual({
      type: 'single_file_rag',
      enabled: true,
      config: { file_path: 'notes/essay-guide.md' },
    });
    ids.classic = classic.body.id;
    ids.multiTool = multiTool.body.id;
  });

  it('shares the classic assistant with a colleague, who then sees its configuration', async () => {
    const shared = await request(server, 'PUT', `/api/assistants/${ids.classic}/shares`, {
      token: apiKey,
      body: { user_emails: ['colleague@school.test'] },
    });
    expect(shared.body).toEqual({ user_emails: ['colleague@school.test'] });
    const seen = await request(server, 'GET', `/api/assistants/${ids.classic}`, { token: colleague.token });
    expect(seen.status).toBe(200);
    expect(seen.body.system_prompt).toBe('You are a patient biology tutor.');
  });

  it('publishes the multi-tool assistant to the organization', async () => {
    const published = await request(server, 'PUT', `/api/assistants/${ids.multiTool}/publish`, {
      token: apiKey,
      body: { published: true },
    });
    expect(published.body.published).toBe(true);
    const list = await request(server, 'GET', '/api/assistants', { token: colleague.token });
    expect(list.body.items.map((item: { id: number }) => item.id).sort()).toEqual([ids.classic, ids.multiTool].sort());
  });

  it('exports both and re-imports them as equal copies', async () => {
    for (const id of [ids.classic, ids.multiTool]) {
      const exported = await request(server, 'GET', `/api/assistants/${id}/export`, { token: apiKey });
      const imported = await request(server, 'POST', '/api/assistants/import', { token: apiKey, body: exported.body });
      expect(imported.status).toBe(201);
      const original = await request(server, 'GET', `/api/assistants/${id}`, { token: apiKey });
      for (const field of [
        'name',
        'description',
        'system_prompt',
        'prompt_template',
        'metadata',
        'rag_collections',
        'rag_top_k',
        'assistant_type',
      ]) {
        expect(imported.body[field], field).toEqual(original.body[field]);
      }
      expect(imported.body.published).toBe(false);
    }
  });

  it('answers 404 to a user of another organization, for reading, exporting and changing', async () => {
    for (const [method, path, body] of [
      ['GET', `/api/assistants/${ids.classic}`, undefined],
      ['GET', `/api/assistants/${ids.multiTool}/export`, undefined],
      ['PATCH', `/api/assistants/${ids.classic}`, { name: 'mine now' }],
    ] as const) {
      const response = await request(server, method, path, { token: outsider.token, body });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const list = await request(server, 'GET', '/api/assistants', { token: outsider.token });
    expect(list.body).toEqual({ items: [], total: 0 });
  });
});
