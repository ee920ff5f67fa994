// Proves that saving an assistant (create, PATCH with metadata, import) checks its tools, tool configs, classic rag_processor, prompt processor and connector against the installed plugins on SQLite and PostgreSQL: a refusal is a 400 invalid_metadata naming the field and stores nothing, and aliases are accepted and stored canonically.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { possiblyUnset } from './support/possibly-unset.js';
import { uploadFile } from './support/upload-file.js';

/** A LAMB export row as LAMB writes it, with the given metadata in both of LAMB's fields. */
function lambExport(metadata: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(metadata);
  return {
    id: 11,
    name: '11_Physics_Helper',
    description: 'Helps with kinematics',
    owner: 'teacher@lamb.example',
    api_callback: text,
    metadata: text,
    system_prompt: 'You are a physics helper.',
    prompt_template: 'Context: {context}\n\nQuestion: {user_input}',
    RAG_endpoint: '',
    RAG_Top_k: 3,
    RAG_collections: 'kb-physics',
    pre_retrieval_endpoint: '',
    post_retrieval_endpoint: '',
    published: false,
    published_at: null,
    group_id: null,
    group_name: null,
    oauth_consumer_name: null,
    created_at: 1_699_990_000,
    updated_at: 1_700_000_000,
  };
}

describe.each(TEST_DIALECTS)('assistant tools validated on save on %s', (dialect) => {
  let server: TestServer;
  let creator: CreatedUser;
  let learner: CreatedUser;
  /** A file the creator uploaded: a single-file tool may only name a file its owner may read. */
  let notesPath: string;

  async function call(token: string, method: string, path: string, body?: unknown): Promise<JsonResponse> {
    return request(server, method, path, { token, ...(body !== undefined && { body }) });
  }

  async function assistantCount(): Promise<number> {
    return (await server.store.db.selectFrom('assistants').select('id').execute()).length;
  }

  async function storedMetadata(id: number): Promise<unknown> {
    const row = await server.store.db.selectFrom('assistants').select('metadata').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.metadata);
  }

  /** POSTs, expects 400 invalid_metadata and that nothing was stored; returns the error. */
  async function expectRefused(
    path: string,
    body: unknown,
  ): Promise<{ message: string; param: string; details: { errors: Array<{ path: string; message: string }> } }> {
    const before = await assistantCount();
    const response = await call(creator.token, 'POST', path, body);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_metadata');
    expect(response.body.error.type).toBe('invalid_request_error');
    expect(await assistantCount()).toBe(before);
    return response.body.error;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    [creator, learner] = await Promise.all([
      createUser(server, adminToken, { email: 'creator@merino.test', role: 'creator' }),
      createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner' }),
    ]);
    notesPath = (await uploadFile(server, creator.token, 'notes.md', '# Notes')).file_path;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('POST /api/assistants', () => {
    it('refuses an unknown tool type with 400 naming it and listing the installed tools', async () => {
      const error = await expectRefused('/api/assistants', {
        name: 'Stock prices',
        metadata: { assistant_type: 'multi_tool', tools: ['no_rag', 'stock_prices'] },
      });
      expect(error.param).toBe('metadata.tools[1].type');
      expect(error.message).toContain('"stock_prices"');
      expect(error.message).toContain('not installed');
      expect(error.message).toContain('no_rag');
      expect(error.message).toContain('single_file_rag');
      expect(error.details.errors).toEqual([{ path: 'metadata.tools[1].type', message: error.message }]);
    });

    it('refuses an unknown tool even in a disabled entry', async () => {
      const error = await expectRefused('/api/assistants', {
        name: 'Disabled retrieval',
        metadata: { assistant_type: 'multi_tool', tools: [{ plugin: 'hierarchical_rag', enabled: false, config: {} }] },
      });
      expect(error.param).toBe('metadata.tools[0].type');
      expect(error.message).toContain('"hierarchical_rag"');
    });

    it('refuses an invalid single_file_rag config with 400 listing every problem with its full path', async () => {
      const error = await expectRefused('/api/assistants', {
        name: 'Bad file config',
        metadata: {
          assistant_type: 'multi_tool',
          tools: ['no_rag', { type: 'single_file_rag', enabled: false, config: { max_chars: 0, colour: 'red' } }],
        },
      });
      const paths = error.details.errors.map((problem) => problem.path);
      expect([...paths].sort()).toEqual([
        'metadata.tools[1].config.colour',
        'metadata.tools[1].config.file_path',
        'metadata.tools[1].config.max_chars',
      ]);
      expect(error.param).toBe(paths[0]);
      expect(error.message).toBe(error.details.errors[0]?.message);
      for (const problem of error.details.errors) expect(problem.message.startsWith(problem.path), problem.message).toBe(true);
    });

    it('refuses an unknown classic rag_processor with 400 naming it', async () => {
      const error = await expectRefused('/api/assistants', {
        name: 'Classic KB',
        metadata: { rag_processor: 'hierarchical_rag' },
        rag_collections: ['kb-1'],
      });
      expect(error.param).toBe('metadata.rag_processor');
      expect(error.message).toContain('"hierarchical_rag"');
    });

    it('refuses an unknown connector or prompt processor with 400 naming it and listing the installed ones', async () => {
      const connector = await expectRefused('/api/assistants', { name: 'Command', metadata: { connector: 'cohere', llm: 'command-r' } });
      expect(connector.param).toBe('metadata.connector');
      expect(connector.message).toContain('"cohere"');
      expect(connector.message).toContain('anthropic, banana_img, bypass, gemini, ollama, openai');
      const processor = await expectRefused('/api/assistants', { name: 'Quiz', metadata: { prompt_processor: 'quiz_augment' } });
      expect(processor.param).toBe('metadata.prompt_processor');
      expect(processor.message).toContain('"quiz_augment"');
    });

    it('accepts aliases and stores the canonical tool names', async () => {
      const response = await call(creator.token, 'POST', '/api/assistants', {
        name: 'Aliased',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          prompt_processor: 'multi_augment',
          tools: ['no_tool', { plugin: 'single_file', placeholder: 'notes', config: { file_path: notesPath, max_chars: 800 } }],
        },
      });
      expect(response.status, response.text).toBe(201);
      const expectedTools = [
        { type: 'no_rag', enabled: true, config: {} },
        { type: 'single_file_rag', enabled: true, config: { file_path: notesPath, max_chars: 800, placeholder: 'notes' } },
      ];
      expect(response.body.metadata.tools).toEqual(expectedTools);
      expect(await storedMetadata(response.body.id)).toMatchObject({ tools: expectedTools });

      const classic = await call(creator.token, 'POST', '/api/assistants', {
        name: 'Aliased classic',
        metadata: { rag_processor: 'single_file', file_path: notesPath },
      });
      expect(classic.status, classic.text).toBe(201);
      expect(await storedMetadata(classic.body.id)).toMatchObject({ rag_processor: 'single_file_rag' });
    });

    it('answers a learner 403 before looking at the metadata', async () => {
      const response = await call(learner.token, 'POST', '/api/assistants', { name: 'Learner', metadata: { tools: ['weather'] } });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
    });
  });

  describe('PATCH /api/assistants/{id}', () => {
    it('refuses bad metadata with 400 and leaves the stored assistant, and the audit trail, unchanged', async () => {
      const created = await call(creator.token, 'POST', '/api/assistants', {
        name: 'Stays as it was',
        description: 'before',
        metadata: { assistant_type: 'multi_tool', tools: [{ type: 'single_file_rag', config: { file_path: notesPath } }] },
      });
      expect(created.status, created.text).toBe(201);
      const storedBefore = await server.store.db
        .selectFrom('assistants')
        .selectAll()
        .where('id', '=', created.body.id)
        .executeTakeFirstOrThrow();

      for (const metadata of [
        { assistant_type: 'multi_tool', tools: ['stock_prices'] },
        { assistant_type: 'multi_tool', tools: [{ type: 'single_file_rag', config: { file_path: notesPath, max_chars: 0 } }] },
        { rag_processor: 'hierarchical_rag' },
        { assistant_type: 'multi_tool', connector: 'cohere' },
      ]) {
        const response = await call(creator.token, 'PATCH', `/api/assistants/${created.body.id}`, { description: 'after', metadata });
        expect(response.status, response.text).toBe(400);
        expect(response.body.error.code).toBe('invalid_metadata');
      }

      const storedAfter = await server.store.db
        .selectFrom('assistants')
        .selectAll()
        .where('id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      expect(storedAfter).toEqual(storedBefore);
      expect((await call(creator.token, 'GET', `/api/assistants/${created.body.id}`)).body).toEqual(created.body);
      const updates = await server.store.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'assistant.update')
        .where('target_id', '=', String(created.body.id))
        .execute();
      expect(updates).toHaveLength(0);
    });

    it('accepts aliases in a PATCH and stores the canonical names', async () => {
      const created = await call(creator.token, 'POST', '/api/assistants', { name: 'Patched with aliases' });
      const patched = await call(creator.token, 'PATCH', `/api/assistants/${created.body.id}`, {
        metadata: { assistant_type: 'multi_tool', tools: [{ type: 'single_file', config: { file_path: notesPath } }] },
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.metadata.tools).toEqual([{ type: 'single_file_rag', enabled: true, config: { file_path: notesPath } }]);
      expect(await storedMetadata(created.body.id)).toEqual(patched.body.metadata);
    });

    it('still saves a PATCH without metadata', async () => {
      const created = await call(creator.token, 'POST', '/api/assistants', { name: 'Renamed', metadata: { rag_processor: 'no_rag' } });
      const patched = await call(creator.token, 'PATCH', `/api/assistants/${created.body.id}`, { name: 'Renamed again' });
      expect(patched.status, patched.text).toBe(200);
    });
  });

  describe('POST /api/assistants/import', () => {
    it('refuses a LAMB export whose rag_processor Merino does not have, with 400 naming it', async () => {
      const error = await expectRefused(
        '/api/assistants/import',
        lambExport({
          prompt_processor: 'simple_augment',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          rag_processor: 'hierarchical_rag',
          file_path: '',
        }),
      );
      expect(error.param).toBe('metadata.rag_processor');
      expect(error.message).toContain('"hierarchical_rag"');
      expect(error.message).toContain('not installed');
    });

    it('names api_callback when an older LAMB export kept its metadata only there', async () => {
      const document = { ...lambExport({ rag_processor: 'hierarchical_rag' }), metadata: '' };
      const error = await expectRefused('/api/assistants/import', document);
      expect(error.param).toBe('api_callback.rag_processor');
      expect(error.message).toContain('"hierarchical_rag"');
    });

    it('refuses an import naming an unknown tool, connector or bad tool config', async () => {
      const tool = await expectRefused('/api/assistants/import', lambExport({ assistant_type: 'multi_tool', tools: ['stock_prices'] }));
      expect(tool.param).toBe('metadata.tools[0].type');
      const connector = await expectRefused('/api/assistants/import', lambExport({ connector: 'cohere' }));
      expect(connector.param).toBe('metadata.connector');
      const config = await expectRefused(
        '/api/assistants/import',
        lambExport({ assistant_type: 'multi_tool', tools: [{ type: 'single_file_rag', config: {} }] }),
      );
      expect(config.param).toBe('metadata.tools[0].config.file_path');
    });

    it('imports a LAMB export using aliases, storing the canonical names', async () => {
      const response = await call(
        creator.token,
        'POST',
        '/api/assistants/import',
        lambExport({
          connector: 'ollama',
          llm: 'llama3.1',
          rag_processor: 'no_tool',
          tools: [{ plugin: 'single_file', config: { file_path: notesPath } }],
        }),
      );
      expect(response.status, response.text).toBe(201);
      expect(response.body.metadata).toMatchObject({
        rag_processor: 'no_rag',
        tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: notesPath } }],
      });
      expect(await storedMetadata(response.body.id)).toEqual(response.body.metadata);
    });
  });
});
