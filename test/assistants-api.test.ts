// Proves the assistants API's behaviour on SQLite and PostgreSQL: create, list filters and paging, partial and immutable-field PATCH, soft delete, publish, shares, LAMB export/import round trips and the audit trail of every write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import {
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type JsonResponse,
  type TestServer,
} from './support/test-server.js';
import { LAMB_ROW_KEYS } from './support/lamb-export-keys.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { uploadFile } from './support/upload-file.js';

/** Fields of an export that legitimately differ between an assistant and its imported copy. */
const FIELDS_NOT_CARRIED_BY_IMPORT = [
  'id',
  'created_at',
  'updated_at',
  'published',
  'published_at',
  'group_id',
  'group_name',
  'oauth_consumer_name',
];

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function without(document: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(document).filter(([key]) => !keys.includes(key)));
}

describe.each(TEST_DIALECTS)('the assistants API on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let organizationAId: number;
  let creator: CreatedUser;
  let learner: CreatedUser;
  let colleague: CreatedUser;
  let outsider: CreatedUser;

  async function call(token: string, method: string, path: string, body?: unknown): Promise<JsonResponse> {
    return request(server, method, path, { token, ...(body !== undefined && { body }) });
  }

  async function createAssistant(body: Record<string, unknown>, token = creator.token): Promise<Record<string, any>> {
    const response = await call(token, 'POST', '/api/assistants', body);
    expect(response.status, response.text).toBe(201);
    return response.body;
  }

  async function auditRows(action: string, assistantId: number) {
    return server.store.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', action)
      .where('target_id', '=', String(assistantId))
      .orderBy('id')
      .execute();
  }

  async function listIds(token: string, query = ''): Promise<number[]> {
    const response = await call(token, 'GET', `/api/assistants?limit=200${query}`);
    expect(response.status, response.text).toBe(200);
    return (response.body.items as Array<{ id: number }>).map((item) => item.id);
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    organizationAId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
    const organizationBId = await insertOrganization(server.store.db, 'organization-b', 'Organization B');
    [creator, learner, colleague, outsider] = await Promise.all([
      createUser(server, adminToken, { email: 'creator@merino.test', role: 'creator', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'zoe.learner@merino.test', role: 'learner', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'amy.colleague@merino.test', role: 'learner', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'outsider@merino.test', role: 'learner', organization_id: organizationBId }),
    ]);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('POST /api/assistants', () => {
    it('creates an assistant with 201, owned by the caller in their organization, with metadata at _format_version 2', async () => {
      const created = await createAssistant({
        name: '  Algebra Tutor  ',
        description: 'Helps with equations',
        system_prompt: 'You are patient.',
        prompt_template: 'Q: {user_input}',
        metadata: { llm: 'gpt-4o-mini', rag_processor: 'no_rag', lamb_only_key: 'kept' },
        rag_top_k: 5,
      });
      expect(created).toMatchObject({
        id: expect.any(Number),
        name: 'Algebra Tutor',
        description: 'Helps with equations',
        owner: creator.email,
        organization_id: organizationAId,
        assistant_type: 'classic',
        published: false,
        published_at: null,
        system_prompt: 'You are patient.',
        prompt_template: 'Q: {user_input}',
        rag_collections: [],
        rag_top_k: 5,
      });
      expect(created.metadata).toEqual({ _format_version: 2, llm: 'gpt-4o-mini', rag_processor: 'no_rag', lamb_only_key: 'kept' });
      expect(created.created_at).toMatch(ISO_TIMESTAMP);
      const stored = await server.store.db
        .selectFrom('assistants')
        .select('metadata')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(stored.metadata)._format_version).toBe(2);
    });

    it('accepts metadata as a JSON string and stores the same canonical object as when it is sent as an object', async () => {
      const metadata = { llm: 'gpt-4o', rag_processor: 'single_file', rubric_id: 17, capabilities: { vision: true } };
      const fromObject = await createAssistant({ name: 'From object', metadata });
      const fromString = await createAssistant({ name: 'From string', metadata: JSON.stringify(metadata) });
      expect(fromString.metadata).toEqual(fromObject.metadata);
      expect(fromString.metadata).toEqual({
        _format_version: 2,
        llm: 'gpt-4o',
        rag_processor: 'single_file_rag',
        rubric_id: '17',
        capabilities: { vision: true },
      });
    });

    it('derives assistant_type from metadata: multi_tool only when metadata says so, classic otherwise', async () => {
      const multiTool = await createAssistant({ name: 'Multi', metadata: { assistant_type: 'multi_tool', tools: ['no_rag'] } });
      const classicExplicit = await createAssistant({ name: 'Classic explicit', metadata: { assistant_type: 'classic' } });
      const noMetadata = await createAssistant({ name: 'No metadata' });
      expect(multiTool.assistant_type).toBe('multi_tool');
      expect(classicExplicit.assistant_type).toBe('classic');
      expect(noMetadata.assistant_type).toBe('classic');
      expect(noMetadata.metadata).toEqual({ _format_version: 2 });
    });

    it('changes assistant_type when a PATCH changes metadata.assistant_type', async () => {
      const created = await createAssistant({ name: 'Becomes multi-tool' });
      const patched = await call(creator.token, 'PATCH', `/api/assistants/${created.id}`, {
        metadata: { assistant_type: 'multi_tool', tools: [] },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.assistant_type).toBe('multi_tool');
    });

    it('accepts rag_collections as a comma-separated string, trimming and dropping empty entries', async () => {
      const created = await createAssistant({ name: 'Comma collections', rag_collections: ' kb-a, kb-b,,kb-c ' });
      expect(created.rag_collections).toEqual(['kb-a', 'kb-b', 'kb-c']);
    });

    it('accepts rag_collections as an array', async () => {
      const created = await createAssistant({ name: 'Array collections', rag_collections: ['kb-x', 'kb-y'] });
      expect(created.rag_collections).toEqual(['kb-x', 'kb-y']);
    });

    it('refuses a collection id containing a comma with 400', async () => {
      const response = await call(creator.token, 'POST', '/api/assistants', { name: 'Bad collections', rag_collections: ['kb-a,kb-b'] });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('rag_collections[0]');
    });

    it('refuses invalid metadata with 400 invalid_metadata naming the field', async () => {
      const response = await call(creator.token, 'POST', '/api/assistants', {
        name: 'Bad metadata',
        metadata: { tools: [{ enabled: true }] },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_metadata');
      expect(response.body.error.param).toBe('metadata.tools[0].type');
    });

    it('refuses a learner creating an assistant with 403 forbidden and stores nothing', async () => {
      const before = await server.store.db.selectFrom('assistants').select('id').execute();
      const response = await call(learner.token, 'POST', '/api/assistants', { name: 'Learner attempt' });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
      expect(await server.store.db.selectFrom('assistants').select('id').execute()).toHaveLength(before.length);
    });
  });

  describe('GET /api/assistants filters and pagination', () => {
    const quokka = {} as Record<'classicByName' | 'classicByDescription' | 'multiToolByName' | 'multiToolUnrelated', number>;

    beforeAll(async () => {
      quokka.classicByName = (await createAssistant({ name: 'Quokka Classic One', description: 'first' })).id;
      quokka.classicByDescription = (await createAssistant({ name: 'Classic Two', description: 'Mentions a QUOKKA here' })).id;
      quokka.multiToolByName = (
        await createAssistant({ name: 'quokka multi', metadata: { assistant_type: 'multi_tool', tools: ['no_rag'] } })
      ).id;
      quokka.multiToolUnrelated = (await createAssistant({ name: 'Unrelated multi', metadata: { assistant_type: 'multi_tool' } })).id;
    });

    it('filters by type=multi_tool: every item is multi_tool and no classic assistant is listed', async () => {
      const response = await call(creator.token, 'GET', '/api/assistants?type=multi_tool&limit=200');
      const items = response.body.items as Array<{ id: number; assistant_type: string }>;
      expect(items.every((item) => item.assistant_type === 'multi_tool')).toBe(true);
      const ids = items.map((item) => item.id);
      expect(ids).toEqual(expect.arrayContaining([quokka.multiToolByName, quokka.multiToolUnrelated]));
      expect(ids).not.toContain(quokka.classicByName);
      expect(response.body.total).toBe(items.length);
    });

    it('filters by type=classic: every item is classic and no multi_tool assistant is listed', async () => {
      const response = await call(creator.token, 'GET', '/api/assistants?type=classic&limit=200');
      const items = response.body.items as Array<{ id: number; assistant_type: string }>;
      expect(items.every((item) => item.assistant_type === 'classic')).toBe(true);
      expect(items.map((item) => item.id)).toEqual(expect.arrayContaining([quokka.classicByName, quokka.classicByDescription]));
      expect(items.map((item) => item.id)).not.toContain(quokka.multiToolByName);
    });

    it('refuses an unknown type with 400', async () => {
      expect((await call(creator.token, 'GET', '/api/assistants?type=hybrid')).status).toBe(400);
    });

    it('searches q case-insensitively in name and description', async () => {
      const response = await call(creator.token, 'GET', '/api/assistants?q=QuOkKa&limit=200');
      expect(new Set((response.body.items as Array<{ id: number }>).map((item) => item.id))).toEqual(
        new Set([quokka.classicByName, quokka.classicByDescription, quokka.multiToolByName]),
      );
      expect(response.body.total).toBe(3);
    });

    it('combines q and type', async () => {
      expect(await listIds(creator.token, '&q=quokka&type=multi_tool')).toEqual([quokka.multiToolByName]);
      expect(new Set(await listIds(creator.token, '&q=quokka&type=classic'))).toEqual(
        new Set([quokka.classicByName, quokka.classicByDescription]),
      );
    });

    it('pages with limit and offset, reporting the full total on every page and never repeating an item', async () => {
      const all = await listIds(creator.token, '&q=quokka');
      expect(all).toHaveLength(3);
      const pages: number[][] = [];
      for (const offset of [0, 2, 3]) {
        const page = await call(creator.token, 'GET', `/api/assistants?q=quokka&limit=2&offset=${offset}`);
        expect(page.status).toBe(200);
        expect(page.body.total).toBe(3);
        pages.push((page.body.items as Array<{ id: number }>).map((item) => item.id));
      }
      expect(pages.map((page) => page.length)).toEqual([2, 1, 0]);
      expect(pages.flat()).toEqual(all);
    });

    it('reports the total of the whole store-side selection, not of the page, without filters', async () => {
      const firstPage = await call(creator.token, 'GET', '/api/assistants?limit=1');
      const everything = await listIds(creator.token);
      expect(firstPage.body.items).toHaveLength(1);
      expect(firstPage.body.total).toBe(everything.length);
      expect(everything.length).toBeGreaterThan(4);
    });

    it('refuses a limit above the maximum page size and a negative offset with 400', async () => {
      expect((await call(creator.token, 'GET', '/api/assistants?limit=100000')).status).toBe(400);
      expect((await call(creator.token, 'GET', '/api/assistants?offset=-1')).status).toBe(400);
    });

    it('treats % and _ in q as literal characters, not as LIKE wildcards', async () => {
      const percent = (await createAssistant({ name: 'wombat 100% sure' })).id;
      await createAssistant({ name: 'wombat 1000 sure' });
      const underscore = (await createAssistant({ name: 'wombat_snake' })).id;
      expect(await listIds(creator.token, `&q=${encodeURIComponent('100%')}`)).toEqual([percent]);
      expect(await listIds(creator.token, `&q=${encodeURIComponent('wombat_')}`)).toEqual([underscore]);
    });

    it('matches q case-insensitively beyond ASCII: "étude guidée" finds "ÉTUDE GUIDÉE"', async () => {
      const id = (await createAssistant({ name: 'ÉTUDE GUIDÉE' })).id;
      expect(await listIds(creator.token, `&q=${encodeURIComponent('étude guidée')}`)).toEqual([id]);
    });
  });

  describe('PATCH /api/assistants/{id}', () => {
    it('changes only the fields sent and keeps every other field as it was', async () => {
      const created = await createAssistant({
        name: 'Partial patch',
        description: 'before',
        system_prompt: 'Prompt stays.',
        prompt_template: 'Template {user_input} stays.',
        metadata: { llm: 'gpt-4o-mini', rag_processor: 'no_rag' },
        rag_collections: 'kb-1,kb-2',
        rag_top_k: 9,
      });
      const patched = await call(creator.token, 'PATCH', `/api/assistants/${created.id}`, { description: 'after' });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.description).toBe('after');
      expect(without(patched.body, ['description', 'updated_at'])).toEqual(without(created, ['description', 'updated_at']));
      const fetched = await call(creator.token, 'GET', `/api/assistants/${created.id}`);
      expect(fetched.body).toEqual(patched.body);
      expect(Date.parse(fetched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    });

    it('refuses an empty PATCH body with 400', async () => {
      const created = await createAssistant({ name: 'Empty patch' });
      expect((await call(creator.token, 'PATCH', `/api/assistants/${created.id}`, {})).status).toBe(400);
    });

    it.each(['owner', 'owner_id', 'organization_id', 'id'] as const)(
      'refuses a PATCH carrying %s with 400 immutable_field naming it, and applies none of the patch',
      async (field) => {
        const attemptedValues: Record<typeof field, unknown> = {
          owner: learner.email,
          owner_id: learner.id,
          organization_id: 999,
          id: 424242,
        };
        const created = await createAssistant({ name: `Immutable ${field}`, description: 'original' });
        const response = await call(creator.token, 'PATCH', `/api/assistants/${created.id}`, {
          description: 'sneaky',
          [field]: attemptedValues[field],
        });
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('immutable_field');
        expect(response.body.error.param).toBe(field);
        expect(response.body.error.message).toContain(`"${field}"`);
        const after = await call(creator.token, 'GET', `/api/assistants/${created.id}`);
        expect(after.body.owner).toBe(creator.email);
        expect(after.body.organization_id).toBe(organizationAId);
        expect(after.body.description).toBe('original');
        const stored = await server.store.db
          .selectFrom('assistants')
          .select(['owner_id', 'organization_id'])
          .where('id', '=', created.id)
          .executeTakeFirstOrThrow();
        expect(stored).toEqual({ owner_id: creator.id, organization_id: organizationAId });
        expect(await auditRows('assistant.update', created.id)).toHaveLength(0);
      },
    );
  });

  describe('DELETE /api/assistants/{id}', () => {
    it('soft-deletes: 204, then GET answers 404, the list omits it, and the row stays in the store with deleted_at set', async () => {
      const created = await createAssistant({ name: 'To be deleted' });
      const deleted = await call(creator.token, 'DELETE', `/api/assistants/${created.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      const fetched = await call(creator.token, 'GET', `/api/assistants/${created.id}`);
      expect(fetched.status).toBe(404);
      expect(fetched.body.error.code).toBe('not_found');
      expect(await listIds(creator.token)).not.toContain(created.id);
      expect(await listIds(adminToken)).not.toContain(created.id);
      const row = await server.store.db
        .selectFrom('assistants')
        .select(['id', 'name', 'deleted_at'])
        .where('id', '=', created.id)
        .executeTakeFirst();
      expect(row).toMatchObject({ id: created.id, name: 'To be deleted' });
      expect(row?.deleted_at).toMatch(ISO_TIMESTAMP);
    });

    it('answers a second DELETE of the same assistant with 404', async () => {
      const created = await createAssistant({ name: 'Deleted twice' });
      expect((await call(creator.token, 'DELETE', `/api/assistants/${created.id}`)).status).toBe(204);
      expect((await call(creator.token, 'DELETE', `/api/assistants/${created.id}`)).status).toBe(404);
    });
  });

  describe('PUT /api/assistants/{id}/publish', () => {
    it('round-trips published true then false, setting and clearing published_at', async () => {
      const created = await createAssistant({ name: 'Publish round trip' });
      const startedAt = Date.now();
      const published = await call(creator.token, 'PUT', `/api/assistants/${created.id}/publish`, { published: true });
      expect(published.status, published.text).toBe(200);
      expect(published.body.published).toBe(true);
      expect(published.body.published_at).toMatch(ISO_TIMESTAMP);
      expect(Date.parse(published.body.published_at)).toBeGreaterThanOrEqual(startedAt - 1000);
      expect((await call(creator.token, 'GET', `/api/assistants/${created.id}`)).body).toMatchObject({
        published: true,
        published_at: published.body.published_at,
      });
      expect(await listIds(learner.token)).toContain(created.id);

      const unpublished = await call(creator.token, 'PUT', `/api/assistants/${created.id}/publish`, { published: false });
      expect(unpublished.status).toBe(200);
      expect(unpublished.body).toMatchObject({ published: false, published_at: null });
      expect((await call(creator.token, 'GET', `/api/assistants/${created.id}`)).body).toMatchObject({
        published: false,
        published_at: null,
      });
      expect(await listIds(learner.token)).not.toContain(created.id);
    });

    it('refuses a publish body without a boolean published with 400', async () => {
      const created = await createAssistant({ name: 'Publish bad body' });
      expect((await call(creator.token, 'PUT', `/api/assistants/${created.id}/publish`, { published: 'yes' })).status).toBe(400);
      expect((await call(creator.token, 'PUT', `/api/assistants/${created.id}/publish`, {})).status).toBe(400);
    });
  });

  describe('shares', () => {
    it('replaces the whole share set on PUT, and GET returns it sorted by email', async () => {
      const created = await createAssistant({ name: 'Shared set' });
      const first = await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, {
        user_emails: [learner.email, colleague.email],
      });
      expect(first.status, first.text).toBe(200);
      expect(first.body).toEqual({ user_emails: [colleague.email, learner.email] });
      expect((await call(creator.token, 'GET', `/api/assistants/${created.id}/shares`)).body).toEqual({
        user_emails: [colleague.email, learner.email],
      });

      const replaced = await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: [learner.email] });
      expect(replaced.body).toEqual({ user_emails: [learner.email] });
      expect((await call(creator.token, 'GET', `/api/assistants/${created.id}/shares`)).body).toEqual({ user_emails: [learner.email] });

      const emptied = await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: [] });
      expect(emptied.body).toEqual({ user_emails: [] });
    });

    it('matches share emails case-insensitively and ignores duplicates', async () => {
      const created = await createAssistant({ name: 'Shared by upper-case email' });
      const response = await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, {
        user_emails: [learner.email.toUpperCase(), learner.email],
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ user_emails: [learner.email] });
    });

    it('refuses an unknown email with 400 unknown_users listing it, and keeps the previous share set', async () => {
      const created = await createAssistant({ name: 'Unknown share' });
      await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: [colleague.email] });
      const response = await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, {
        user_emails: ['nobody@merino.test', learner.email],
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('unknown_users');
      expect(response.body.error.details.unknown_emails).toEqual(['nobody@merino.test']);
      expect(response.body.error.message).toContain('nobody@merino.test');
      expect((await call(creator.token, 'GET', `/api/assistants/${created.id}/shares`)).body).toEqual({ user_emails: [colleague.email] });
    });

    it('refuses sharing with a user of another organization with 400, and keeps the previous share set', async () => {
      const created = await createAssistant({ name: 'Cross-organization share' });
      const response = await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: [outsider.email] });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_body');
      expect(response.body.error.param).toBe('user_emails');
      expect(response.body.error.message).toContain(outsider.email);
      expect((await call(creator.token, 'GET', `/api/assistants/${created.id}/shares`)).body).toEqual({ user_emails: [] });
      expect((await call(outsider.token, 'GET', `/api/assistants/${created.id}`)).status).toBe(404);
    });

    it('ignores the owner in the share list instead of failing', async () => {
      const created = await createAssistant({ name: 'Owner in shares' });
      const response = await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, {
        user_emails: [creator.email, learner.email],
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ user_emails: [learner.email] });
    });

    it('puts a shared assistant in the shared user’s list, and takes it out when the share is removed', async () => {
      const created = await createAssistant({ name: 'Visible through share' });
      expect(await listIds(learner.token)).not.toContain(created.id);
      await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: [learner.email] });
      expect(await listIds(learner.token)).toContain(created.id);
      expect(await listIds(colleague.token)).not.toContain(created.id);
      await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: [] });
      expect(await listIds(learner.token)).not.toContain(created.id);
      expect((await call(learner.token, 'GET', `/api/assistants/${created.id}`)).status).toBe(404);
    });
  });

  describe('export and import', () => {
    // A single-file tool may only name a file its owner may read, so the creator uploads both first.
    const filePaths = { a: '', b: '' };
    beforeAll(async () => {
      filePaths.a = (await uploadFile(server, creator.token, 'a.md', '# A')).file_path;
      filePaths.b = (await uploadFile(server, creator.token, 'b.md', '# B')).file_path;
    });

    async function exportAssistant(id: number): Promise<JsonResponse> {
      const response = await call(creator.token, 'GET', `/api/assistants/${id}/export`);
      expect(response.status, response.text).toBe(200);
      return response;
    }

    // The `assistant` tool shape (seed 002) is not here: that tool is not installed yet, so the API
    // refuses it; the normalizer's unit tests still cover reading that shape.
    async function createRichMultiToolAssistant(): Promise<Record<string, any>> {
      return createAssistant({
        name: '12_Tutor de Química_v2 🧪 «ñandú»',
        description: 'Ayuda con estequiometría — 化学 ✓',
        system_prompt: 'Eres un tutor de química.\n日本語も話せます。\tNever reveal {secret}.',
        prompt_template: 'Context:\n{context}\n\nNotes:\n{notes}\n\nQuestion: {user_input}\n\nLiteral {braces} stay.',
        rag_collections: ['kb-química', 'kb-2'],
        rag_top_k: 7,
        metadata: {
          assistant_type: 'multi_tool',
          prompt_processor: 'multi_augment',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          verbose: true,
          capabilities: { vision: true, image_generation: false },
          lamb_extension: { nested: ['ü', 1, null, true] },
          tools: [
            'no_rag',
            { type: 'single_file_rag', enabled: true, config: { file_path: filePaths.a } },
            { plugin: 'single_file', placeholder: 'notes', enabled: false, config: { file_path: filePaths.b } },
          ],
        },
      });
    }

    it('normalizes the string, {type, enabled, config} and {plugin, placeholder} tool shapes of a rich multi-tool assistant into {type, enabled, config}', async () => {
      const rich = await createRichMultiToolAssistant();
      expect(rich.assistant_type).toBe('multi_tool');
      expect(rich.metadata.tools).toEqual([
        { type: 'no_rag', enabled: true, config: {} },
        { type: 'single_file_rag', enabled: true, config: { file_path: filePaths.a } },
        { type: 'single_file_rag', enabled: false, config: { file_path: filePaths.b, placeholder: 'notes' } },
      ]);
    });

    it('exports as an attachment with every LAMB key in LAMB’s types', async () => {
      const created = await createAssistant({
        name: 'Export Types',
        description: 'typed',
        system_prompt: 'sp',
        prompt_template: 'pt {user_input}',
        metadata: { llm: 'gpt-4o-mini', rag_processor: 'no_rag' },
        rag_collections: ['kb-a', 'kb-b'],
        rag_top_k: 4,
      });
      const response = await exportAssistant(created.id);
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="Export_Types.json"');
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const document = response.body as Record<string, unknown>;
      for (const key of LAMB_ROW_KEYS) expect(document, `missing ${key}`).toHaveProperty(key);
      expect(document).toMatchObject({
        name: 'Export Types',
        description: 'typed',
        owner: creator.email,
        system_prompt: 'sp',
        prompt_template: 'pt {user_input}',
        RAG_endpoint: '',
        RAG_Top_k: 4,
        RAG_collections: 'kb-a,kb-b',
        pre_retrieval_endpoint: '',
        post_retrieval_endpoint: '',
        published: false,
        published_at: null,
        group_id: null,
        group_name: null,
        oauth_consumer_name: null,
      });
      expect(typeof document.metadata).toBe('string');
      expect(JSON.parse(document.metadata as string)).toEqual(created.metadata);
      expect(document.api_callback).toBe(document.metadata);
      expect(Number.isInteger(document.created_at)).toBe(true);
      expect(Number.isInteger(document.updated_at)).toBe(true);
      expect(document.created_at).toBe(Math.floor(Date.parse(created.created_at) / 1000));
    });

    it('exports a published assistant with an integer published_at and LAMB’s publication names', async () => {
      const created = await createAssistant({ name: 'Published Export' });
      const published = await call(creator.token, 'PUT', `/api/assistants/${created.id}/publish`, { published: true });
      const document = (await exportAssistant(created.id)).body as Record<string, unknown>;
      expect(document.published).toBe(true);
      expect(document.published_at).toBe(Math.floor(Date.parse(published.body.published_at) / 1000));
      expect(document.group_id).toBe(`assistant_${created.id}`);
      expect(document.group_name).toBe(`assistant_${created.id}`);
      expect(document.oauth_consumer_name).toBe('Published Export');
    });

    it('imports its own export losslessly: a second export equals the first on every field but id, timestamps and publication', async () => {
      const rich = await createRichMultiToolAssistant();
      await call(creator.token, 'PUT', `/api/assistants/${rich.id}/publish`, { published: true });
      const firstExport = (await exportAssistant(rich.id)).body as Record<string, unknown>;

      const imported = await call(creator.token, 'POST', '/api/assistants/import', firstExport);
      expect(imported.status, imported.text).toBe(201);
      expect(imported.body.id).not.toBe(rich.id);
      expect(imported.body).toMatchObject({
        name: rich.name,
        published: false,
        published_at: null,
        owner: creator.email,
        assistant_type: 'multi_tool',
      });
      const secondExport = (await exportAssistant(imported.body.id)).body as Record<string, unknown>;

      expect(without(secondExport, FIELDS_NOT_CARRIED_BY_IMPORT)).toEqual(without(firstExport, FIELDS_NOT_CARRIED_BY_IMPORT));
      expect(secondExport.name).toBe('12_Tutor de Química_v2 🧪 «ñandú»');
      const importedView = await call(creator.token, 'GET', `/api/assistants/${imported.body.id}`);
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
        expect(importedView.body[field], field).toEqual(rich[field]);
      }
    });

    it('imports a realistic LAMB export, undoing LAMB’s name mangling and keeping its metadata and collections', async () => {
      const lambMetadata = JSON.stringify({
        prompt_processor: 'simple_augment',
        connector: 'openai',
        llm: 'gpt-4o-mini',
        rag_processor: 'no_rag',
        file_path: '',
      });
      const lambRow = {
        id: 7,
        name: '7_Chemistry_Helper',
        description: 'Helps with stoichiometry',
        owner: 'teacher@lamb.example',
        api_callback: lambMetadata,
        metadata: lambMetadata,
        system_prompt: 'You are a chemistry helper.',
        prompt_template: 'Context: {context}\n\nQuestion: {user_input}',
        RAG_endpoint: '',
        RAG_Top_k: 5,
        RAG_collections: 'kb-a,kb-b',
        pre_retrieval_endpoint: '',
        post_retrieval_endpoint: '',
        published: true,
        published_at: 1_700_000_000,
        group_id: 'assistant_7',
        group_name: 'assistant_7',
        oauth_consumer_name: '7_Chemistry_Helper',
        created_at: 1_699_990_000,
        updated_at: 1_700_000_000,
      };
      const response = await call(creator.token, 'POST', '/api/assistants/import', lambRow);
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({
        name: 'Chemistry Helper',
        description: 'Helps with stoichiometry',
        owner: creator.email,
        organization_id: organizationAId,
        assistant_type: 'classic',
        published: false,
        published_at: null,
        system_prompt: 'You are a chemistry helper.',
        prompt_template: 'Context: {context}\n\nQuestion: {user_input}',
        rag_collections: ['kb-a', 'kb-b'],
        rag_top_k: 5,
      });
      expect(response.body.metadata).toEqual({ _format_version: 2, ...JSON.parse(lambMetadata) });
    });

    it('imports a LAMB export wrapped as {assistant: {...}}', async () => {
      const response = await call(creator.token, 'POST', '/api/assistants/import', {
        assistant: { name: '3_Wrapped_Physics', metadata: '' },
      });
      expect(response.status, response.text).toBe(201);
      expect(response.body.name).toBe('Wrapped Physics');
    });

    it.each([
      ['an empty object', {}, 'invalid_import', 'name'],
      ['an empty name', { name: '' }, 'invalid_import', 'name'],
      ['metadata that is not JSON', { name: 'x', metadata: '{bad' }, 'invalid_metadata', 'metadata'],
    ])('refuses importing %s with 400 and stores nothing', async (_label, document, code, param) => {
      const before = await server.store.db.selectFrom('assistants').select('id').execute();
      const response = await call(creator.token, 'POST', '/api/assistants/import', document);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe(code);
      expect(response.body.error.param).toBe(param);
      expect(await server.store.db.selectFrom('assistants').select('id').execute()).toHaveLength(before.length);
    });

    it('refuses a learner importing with 403 forbidden', async () => {
      const response = await call(learner.token, 'POST', '/api/assistants/import', { name: 'Learner import' });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
    });
  });

  describe('audit trail', () => {
    it('records every write with the actor, the organization and the assistant id', async () => {
      const created = await createAssistant({ name: 'Audited' });
      await call(creator.token, 'PATCH', `/api/assistants/${created.id}`, { description: 'changed', rag_top_k: 2 });
      await call(creator.token, 'PUT', `/api/assistants/${created.id}/publish`, { published: true });
      await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: [learner.email] });
      const exported = await call(creator.token, 'GET', `/api/assistants/${created.id}/export`);
      const imported = await call(creator.token, 'POST', '/api/assistants/import', exported.body);
      expect(imported.status, imported.text).toBe(201);
      expect((await call(creator.token, 'DELETE', `/api/assistants/${created.id}`)).status).toBe(204);

      const expectations: Array<[string, number]> = [
        ['assistant.create', created.id],
        ['assistant.update', created.id],
        ['assistant.publish', created.id],
        ['assistant.share', created.id],
        ['assistant.delete', created.id],
        ['assistant.import', imported.body.id],
      ];
      for (const [action, id] of expectations) {
        const rows = await auditRows(action, id);
        expect(rows, action).toHaveLength(1);
        expect(rows[0], action).toMatchObject({
          actor_user_id: creator.id,
          organization_id: organizationAId,
          target_type: 'assistant',
          target_id: String(id),
        });
        expect(rows[0]?.request_id, action).toEqual(expect.any(String));
      }
      expect(JSON.parse((await auditRows('assistant.update', created.id))[0]!.details)).toEqual({ fields: ['description', 'rag_top_k'] });
      expect(JSON.parse((await auditRows('assistant.share', created.id))[0]!.details)).toEqual({ user_ids: [learner.id] });
      expect(await auditRows('assistant.create', imported.body.id)).toHaveLength(0);
    });

    it('records no audit entry for a refused write', async () => {
      const created = await createAssistant({ name: 'Refused writes' });
      await call(learner.token, 'PATCH', `/api/assistants/${created.id}`, { description: 'no' });
      await call(learner.token, 'DELETE', `/api/assistants/${created.id}`);
      await call(creator.token, 'PUT', `/api/assistants/${created.id}/shares`, { user_emails: ['nobody@merino.test'] });
      for (const action of ['assistant.update', 'assistant.delete', 'assistant.share'])
        expect(await auditRows(action, created.id), action).toHaveLength(0);
    });
  });
});
