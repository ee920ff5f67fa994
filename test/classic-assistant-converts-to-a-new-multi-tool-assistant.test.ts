// Proves over real HTTP, on SQLite and PostgreSQL, that POST /api/assistants/{id}/convert previews a classic assistant's multi-tool metadata and 001 §10.7's log line on a dry run without writing anything, otherwise creates a new multi-tool assistant "<name> (multi-tool)" owned by the caller and audited, leaves the classic one untouched, refuses each role that may not, and answers hostile input with 4xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { uploadFile } from './support/upload-file.js';

const CLASSIC = {
  name: 'Essay Coach',
  description: 'Grades essays',
  system_prompt: 'You are a fair grader.',
  prompt_template: 'Rubric:\n{context}\n\nEssay: {user_input}',
  metadata: { connector: 'openai', llm: 'gpt-4o-mini', rag_processor: 'single_file_rag', file_path: 'rubrics/essay.md', verbose: true },
  rag_collections: ['col-1'],
  rag_top_k: 4,
};

describe.each(TEST_DIALECTS)('converting a classic assistant to multi-tool on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let owner: string;
  let colleague: string;
  let sharedLearner: string;
  let learner: string;
  let outsider: string;
  let classicId: number;

  async function call(token: string | undefined, path: string, body?: unknown): Promise<JsonResponse> {
    return request(server, 'POST', path, { ...(token !== undefined && { token }), ...(body !== undefined && { body }) });
  }

  async function storedRow(id: number) {
    return server.store.db.selectFrom('assistants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function assistantCount(): Promise<number> {
    const rows = await server.store.db.selectFrom('assistants').select('id').execute();
    return rows.length;
  }

  async function createClassic(fields: Record<string, unknown>): Promise<number> {
    const response = await request(server, 'POST', '/api/assistants', { token: owner, body: { ...CLASSIC, ...fields } });
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    [owner, colleague, sharedLearner, learner, outsider] = (await peopleInTwoOrganizations(server, adminToken, [
      { email: 'owner@merino.test', role: 'creator', organization: 'A' },
      { email: 'colleague@merino.test', role: 'creator', organization: 'A' },
      { email: 'shared.learner@merino.test', role: 'learner', organization: 'A' },
      { email: 'learner@merino.test', role: 'learner', organization: 'A' },
      { email: 'outsider@merino.test', role: 'creator', organization: 'B' },
    ])) as [string, string, string, string, string];
    // The single-file tool may only name a file its owner may read, so the owner uploads the rubric first.
    CLASSIC.metadata.file_path = (await uploadFile(server, owner, 'essay.md', '# Essay rubric')).file_path;
    classicId = await createClassic({});
    const shares = await request(server, 'PUT', `/api/assistants/${classicId}/shares`, {
      token: owner,
      body: { user_emails: ['shared.learner@merino.test'] },
    });
    expect(shares.status, shares.text).toBe(200);
    const published = await request(server, 'PUT', `/api/assistants/${classicId}/publish`, { token: owner, body: { published: true } });
    expect(published.status, published.text).toBe(200);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('the owner', () => {
    it('gets a dry run with the multi-tool metadata and the log line, and nothing is written', async () => {
      const before = await storedRow(classicId);
      const count = await assistantCount();
      const response = await call(owner, `/api/assistants/${classicId}/convert`, { dry_run: true });
      expect(response.status, response.text).toBe(200);
      expect(response.body.metadata).toEqual({
        _format_version: 2,
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: 'gpt-4o-mini',
        verbose: true,
        prompt_processor: 'multi_augment',
        tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: CLASSIC.metadata.file_path, placeholder: 'context' } }],
      });
      expect(response.body.prompt_template).toBe(CLASSIC.prompt_template);
      const lines = (response.body.log as string).split('\n');
      expect(lines[0]).toBe(`INFO lamb.migration: Migrated assistant ${classicId} from v1 to v2`);
      expect(lines).toContain('  assistant_name: "Essay Coach"');
      expect(lines).toContain('  owner: "owner@merino.test"');
      expect(lines).toContain(`  new_metadata: ${JSON.stringify(response.body.metadata)}`);
      expect(await assistantCount()).toBe(count);
      expect(await storedRow(classicId)).toEqual(before);
    });

    it('creates a new multi-tool assistant named "<name> (multi-tool)", audited, and leaves the classic one untouched', async () => {
      const before = await storedRow(classicId);
      const preview = await call(owner, `/api/assistants/${classicId}/convert`, { dry_run: true });
      const response = await call(owner, `/api/assistants/${classicId}/convert`, { dry_run: false });
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({
        name: 'Essay Coach (multi-tool)',
        description: CLASSIC.description,
        owner: 'owner@merino.test',
        assistant_type: 'multi_tool',
        published: false,
        system_prompt: CLASSIC.system_prompt,
        prompt_template: CLASSIC.prompt_template,
        metadata: preview.body.metadata,
        rag_collections: ['col-1'],
        rag_top_k: 4,
      });
      expect(response.body.id).not.toBe(classicId);
      expect(await storedRow(classicId)).toEqual(before);
      const audit = await server.store.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'assistant.convert')
        .where('target_id', '=', String(response.body.id))
        .execute();
      expect(audit).toHaveLength(1);
      expect(JSON.parse(audit[0]!.details)).toEqual({ converted_from: classicId });
    });

    it('refuses a request without a body with 400 naming the body, and creates nothing', async () => {
      const count = await assistantCount();
      const response = await request(server, 'POST', `/api/assistants/${classicId}/convert`, { token: owner });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error.message).toContain('body');
      expect(await assistantCount()).toBe(count);
    });

    it('keeps a long name within the name limit, shortening the name and never the suffix', async () => {
      const id = await createClassic({ name: 'N'.repeat(200) });
      const response = await call(owner, `/api/assistants/${id}/convert`, { dry_run: false });
      expect(response.status, response.text).toBe(201);
      expect(response.body.name).toBe(`${'N'.repeat(187)} (multi-tool)`);
      expect(Array.from(response.body.name as string)).toHaveLength(200);
    });
  });

  describe('other roles', () => {
    it('lets a creator of the same organization who sees it only as published have 403', async () => {
      const response = await call(colleague, `/api/assistants/${classicId}/convert`, { dry_run: true });
      expect(response.status, response.text).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
    });

    it('refuses the learner it is shared with 403: they see the configuration but may not create assistants', async () => {
      const response = await call(sharedLearner, `/api/assistants/${classicId}/convert`, { dry_run: false });
      expect(response.status, response.text).toBe(403);
      expect(response.body.error.message).toMatch(/learners cannot create assistants/i);
    });

    it('refuses a learner of the organization 403', async () => {
      const response = await call(learner, `/api/assistants/${classicId}/convert`, { dry_run: true });
      expect(response.status, response.text).toBe(403);
    });

    it('hides it from a creator of another organization with 404', async () => {
      const response = await call(outsider, `/api/assistants/${classicId}/convert`, { dry_run: true });
      expect(response.status, response.text).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    });

    it('refuses an anonymous caller 401', async () => {
      const response = await call(undefined, `/api/assistants/${classicId}/convert`, { dry_run: true });
      expect(response.status, response.text).toBe(401);
    });

    it('lets the organization admin convert it, the new assistant being theirs', async () => {
      const response = await call(adminToken, `/api/assistants/${classicId}/convert`, { dry_run: false });
      expect(response.status, response.text).toBe(201);
      expect(response.body.owner).toBe('admin@merino.test');
    });

    it('never creates anything for a refused caller', async () => {
      const count = await assistantCount();
      for (const token of [colleague, sharedLearner, learner, outsider])
        await call(token, `/api/assistants/${classicId}/convert`, { dry_run: false });
      expect(await assistantCount()).toBe(count);
    });
  });

  describe('hostile input', () => {
    it.each([
      ['an empty object (dry_run is required)', {}],
      ['an unknown key', { dry_run: true, name: 'mine' }],
      ['a dry_run that is not a boolean', { dry_run: 'yes' }],
      ['an array body', [true]],
    ])('refuses %s with 400', async (_label, body) => {
      const response = await call(owner, `/api/assistants/${classicId}/convert`, body);
      expect(response.status, response.text).toBe(400);
      expect(response.body.error).toBeDefined();
    });

    it('refuses malformed JSON with 400', async () => {
      const response = await request(server, 'POST', `/api/assistants/${classicId}/convert`, {
        token: owner,
        rawBody: '{"dry_run": tru',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status, response.text).toBe(400);
    });

    it.each(['999999', '99999999999999999999999', '-1', 'abc'])('answers the id %s with 4xx', async (id) => {
      const response = await call(owner, `/api/assistants/${id}/convert`, { dry_run: true });
      expect(response.status, response.text).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    });

    it('refuses to convert a multi-tool assistant with 409 assistant_not_convertible', async () => {
      const multi = await request(server, 'POST', '/api/assistants', {
        token: owner,
        body: { name: 'Already multi', metadata: { assistant_type: 'multi_tool', tools: [] } },
      });
      expect(multi.status, multi.text).toBe(201);
      for (const body of [{ dry_run: true }, { dry_run: false }]) {
        const response = await call(owner, `/api/assistants/${multi.body.id}/convert`, body);
        expect(response.status, response.text).toBe(409);
        expect(response.body.error.code).toBe('assistant_not_convertible');
        expect(response.body.error.message).toContain('multi-tool assistant already');
      }
    });

    it('refuses a classic assistant whose rag processor is not installed with 409 naming it', async () => {
      const id = await createClassic({ metadata: { rag_processor: 'no_rag' } });
      await server.store.db
        .updateTable('assistants')
        .set({ metadata: JSON.stringify({ _format_version: 2, rag_processor: 'context_aware_rag' }) })
        .where('id', '=', id)
        .execute();
      const response = await call(owner, `/api/assistants/${id}/convert`, { dry_run: true });
      expect(response.status, response.text).toBe(409);
      expect(response.body.error.message).toContain('"context_aware_rag"');
    });

    it('refuses a classic simple_rag assistant without collections with 409 naming the refused field', async () => {
      const id = await createClassic({ metadata: { rag_processor: 'simple_rag' }, rag_collections: [] });
      const response = await call(owner, `/api/assistants/${id}/convert`, { dry_run: true });
      expect(response.status, response.text).toBe(409);
      expect(response.body.error.code).toBe('assistant_not_convertible');
      expect(response.body.error.message).toContain('metadata.tools[0].config.collections');
      expect(response.text).not.toMatch(/at .*\.ts:\d+/);
    });
  });
});
