// Proves over real HTTP, on each test store, that POST /api/assistants/import?dry_run=true answers what the import would create with its problems — knowledge bases, files and rubrics the importer cannot reach, and what the import itself would refuse — writes nothing, answers each role as the import does, and refuses hostile input with a 4xx naming the problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { fourRolesInTwoOrganizations } from './support/two-organizations.js';
import { uploadFile } from './support/upload-file.js';

const DRY_RUN = '/api/assistants/import?dry_run=true';

describe.each(TEST_DIALECTS)('previewing an import on %s', (dialect) => {
  let server: TestServer;
  let owner: string;
  let colleague: string;
  let learner: string;
  let outsider: string;
  let ownKnowledgeBase: string;

  /** A LAMB-style export of a multi-tool assistant naming one knowledge base that exists and several things that do not. */
  function document(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      name: 'Imported tutor',
      description: 'Answers from the course notes',
      system_prompt: 'Be kind.',
      prompt_template: '{context}{user_input}',
      metadata: JSON.stringify({
        assistant_type: 'multi_tool',
        connector: 'bypass',
        llm: 'simple-bypass',
        tools: [
          { type: 'simple_rag', enabled: true, config: { collections: [ownKnowledgeBase, '999999'] } },
          { type: 'single_file_rag', enabled: true, config: { file_path: '1/missing-notes.md' } },
          { type: 'rubric_rag', enabled: true, config: { rubric_id: 'no-such-rubric' } },
        ],
      }),
      RAG_collections: '',
      RAG_Top_k: 3,
      merino_export_version: 1,
      ...overrides,
    };
  }

  async function dryRun(token: string | undefined, body: unknown, path = DRY_RUN): Promise<JsonResponse> {
    return request(server, 'POST', path, { ...(token !== undefined && { token }), body });
  }

  async function assistantCount(): Promise<number> {
    return (await server.store.db.selectFrom('assistants').select('id').execute()).length;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    ({ owner, colleague, learner, outsider } = await fourRolesInTwoOrganizations(server, adminToken));
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Course notes' } });
    expect(created.status, created.text).toBe(201);
    ownKnowledgeBase = String(created.body.id);
  });

  afterAll(async () => {
    await server.close();
  });

  it('shows the owner what would be created and each reference they cannot reach, and writes nothing', async () => {
    const before = await assistantCount();
    const response = await dryRun(owner, document());
    expect(response.status, response.text).toBe(200);
    expect(response.body.assistant).toMatchObject({
      name: 'Imported tutor',
      description: 'Answers from the course notes',
      assistant_type: 'multi_tool',
      is_orchestrator: false,
    });
    expect(response.body.assistant.metadata.tools.map((tool: { type: string }) => tool.type)).toEqual([
      'simple_rag',
      'single_file_rag',
      'rubric_rag',
    ]);
    expect(response.body.problems).toEqual([
      expect.objectContaining({ path: 'metadata.tools[0].config.collections[1]', code: 'missing_knowledge_base', blocking: false }),
      // A file the importer may not read is refused by the import itself, so it blocks.
      expect.objectContaining({ path: 'metadata.tools[1].config.file_path', code: 'missing_file', blocking: true }),
      expect.objectContaining({ path: 'metadata.tools[2].config.rubric_id', code: 'missing_rubric', blocking: false }),
    ]);
    expect(response.body.problems[0]).toMatchObject({ reference: '999999' });
    expect(response.body.problems[0].message).toContain('999999');
    expect(await assistantCount()).toBe(before);
  });

  it("flags a same-organization creator's reference to a knowledge base that is not theirs", async () => {
    const response = await dryRun(colleague, document());
    expect(response.status, response.text).toBe(200);
    expect(response.body.problems.filter((problem: { code: string }) => problem.code === 'missing_knowledge_base')).toHaveLength(2);
  });

  it('checks classic collections, files and rubrics too, for another organization', async () => {
    const classic = document({
      metadata: JSON.stringify({ connector: 'bypass', llm: 'simple-bypass', rag_processor: 'single_file_rag', file_path: '7/notes.md' }),
      RAG_collections: ownKnowledgeBase,
    });
    const response = await dryRun(outsider, classic);
    expect(response.status, response.text).toBe(200);
    expect(response.body.assistant.assistant_type).toBe('classic');
    expect(response.body.problems.map((problem: { path: string; code: string }) => [problem.path, problem.code])).toEqual([
      ['RAG_collections[0]', 'missing_knowledge_base'],
      ['metadata.file_path', 'missing_file'],
    ]);
  });

  it('lists what the import itself would refuse as blocking problems', async () => {
    const unusable = document({
      metadata: JSON.stringify({
        assistant_type: 'multi_tool',
        connector: 'bypass',
        llm: 'simple-bypass',
        tools: [{ type: 'assistant', enabled: true, config: { assistant_id: 424242 } }],
      }),
    });
    const response = await dryRun(owner, unusable);
    expect(response.status, response.text).toBe(200);
    expect(response.body.assistant.is_orchestrator).toBe(true);
    expect(response.body.problems).toEqual([
      expect.objectContaining({ path: 'metadata.tools[0].assistant_id', code: 'invalid_metadata', blocking: true }),
    ]);
    expect((await request(server, 'POST', '/api/assistants/import', { token: owner, body: unusable })).status).toBe(400);
  });

  it('refuses a learner and an anonymous caller as the import does', async () => {
    const learnerResponse = await dryRun(learner, document());
    expect(learnerResponse.status).toBe(403);
    expect(learnerResponse.body.error.code).toBe('forbidden');
    expect((await dryRun(undefined, document())).status).toBe(401);
  });

  it('refuses a document that cannot be read, naming the problem', async () => {
    const noName = await dryRun(owner, { description: 'nameless' });
    expect(noName.status).toBe(400);
    expect(noName.body.error).toMatchObject({ code: 'invalid_import', param: 'name' });
    const wrongCollections = await dryRun(owner, document({ RAG_collections: [1, 2] }));
    expect(wrongCollections.status).toBe(400);
    expect(wrongCollections.body.error).toMatchObject({ code: 'invalid_import', param: 'RAG_collections[0]' });
    const array = await dryRun(owner, [document()]);
    expect(array.status).toBe(400);
  });

  it('refuses a body that is not JSON, one too large, and a dry_run that is not a boolean', async () => {
    const notJson = await request(server, 'POST', DRY_RUN, { token: owner, rawBody: '{"name": "half' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('invalid_json');
    const huge = await request(server, 'POST', DRY_RUN, { token: owner, body: { name: 'x', description: 'y'.repeat(12 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    const badFlag = await dryRun(owner, document(), '/api/assistants/import?dry_run=maybe');
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error).toMatchObject({ code: 'invalid_query', param: 'dry_run' });
  });

  it('still imports a LAMB body without the flag', async () => {
    const notes = await uploadFile(server, owner, 'notes.md', '# Notes');
    const readable = JSON.stringify({
      assistant_type: 'multi_tool',
      connector: 'bypass',
      llm: 'simple-bypass',
      tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: notes.file_path } }],
    });
    const response = await request(server, 'POST', '/api/assistants/import', { token: owner, body: document({ metadata: readable }) });
    expect(response.status, response.text).toBe(201);
    expect(response.body.name).toBe('Imported tutor');
  });
});
