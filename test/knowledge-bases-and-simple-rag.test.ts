/**
 * Proves the knowledge-bases API (create, list, share with the organization, change, delete with
 * its chunks), LAMB's query contract, and simple_rag filling `{context}` with ranked passages and
 * their sources, for multi-tool and classic assistants, with every collection checked against the
 * assistant owner at run time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { insertDocumentOfPassages } from './support/stored-documents.js';

const PASSAGES = [
  { text: 'Mitosis is the division of one cell into two identical daughter cells.', page: 3 },
  { text: 'Meiosis produces four gametes, each with half the chromosomes.', page: 4 },
  { text: 'The Krebs cycle releases energy inside the mitochondria.', page: 9 },
];

function addDocument(server: TestServer, knowledgeBaseId: number, passages: typeof PASSAGES): Promise<number> {
  return insertDocumentOfPassages(server.store.db, knowledgeBaseId, { fileName: 'biology.pdf', contentType: 'application/pdf', passages });
}

function shownPrompt(response: { body: any }): Array<{ role: string; content: string }> {
  return JSON.parse(response.body.choices[0].message.content).messages;
}

describe.each(TEST_DIALECTS)('knowledge bases and simple_rag on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let teacher: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let outsider: CreatedUser;
  let biology: number;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `teacher-${dialect}@merino.test`, role: 'creator' });
    colleague = await createUser(server, adminToken, { email: `colleague-${dialect}@merino.test`, role: 'creator' });
    learner = await createUser(server, adminToken, { email: `learner-${dialect}@merino.test`, role: 'learner' });
    const otherOrganization = await insertOrganization(server.store.db, `elsewhere-${dialect}`, 'Elsewhere');
    outsider = await createUser(server, adminToken, {
      email: `outsider-${dialect}@merino.test`,
      role: 'admin',
      organization_id: otherOrganization,
    });
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Biology', description: 'Cells and energy' },
    });
    expect(created.status).toBe(201);
    biology = created.body.id;
    await addDocument(server, biology, PASSAGES);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('creates a knowledge base with the default chunking and counts its contents', async () => {
    const response = await request(server, 'GET', `/api/knowledge-bases/${biology}`, { token: teacher.token });
    expect(response.body).toMatchObject({
      name: 'Biology',
      owner: teacher.email,
      visibility: 'private',
      chunk_size: 1000,
      chunk_overlap: 200,
      document_count: 1,
      chunk_count: 3,
    });
    const refused = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Bad', chunk_size: 500, chunk_overlap: 300 },
    });
    expect(refused.body.error).toMatchObject({ code: 'invalid_chunking', param: 'chunk_overlap' });
    expect((await request(server, 'POST', '/api/knowledge-bases', { token: learner.token, body: { name: 'Mine' } })).status).toBe(403);
  });

  it('answers a query with LAMB’s contract: ranked results with similarity, data and metadata', async () => {
    const response = await request(server, 'POST', `/api/knowledge-bases/${biology}/query`, {
      token: teacher.token,
      body: { query_text: 'How does a cell divide in mitosis?', top_k: 2, threshold: 0, plugin_params: {} },
    });
    expect(response.status).toBe(200);
    expect(response.body.query).toBe('How does a cell divide in mitosis?');
    expect(response.body.count).toBe(response.body.results.length);
    expect(response.body.results.length).toBeLessThanOrEqual(2);
    expect(response.body.results[0]).toMatchObject({
      data: PASSAGES[0]!.text,
      metadata: { filename: 'biology.pdf', page: 3, knowledge_base_id: biology },
    });
    expect(response.body.results[0].similarity).toBeGreaterThan(0);
    expect(response.body.results[0].similarity).toBeLessThan(1);
    expect(typeof response.body.timing.total_ms).toBe('number');
    const strict = await request(server, 'POST', `/api/knowledge-bases/${biology}/query`, {
      token: teacher.token,
      body: { query_text: 'mitosis', threshold: 0.999 },
    });
    expect(strict.body).toMatchObject({ results: [], count: 0 });
  });

  it('keeps a private knowledge base hidden, and shares it with the organization for reading only', async () => {
    expect((await request(server, 'GET', `/api/knowledge-bases/${biology}`, { token: colleague.token })).status).toBe(404);
    expect((await request(server, 'GET', '/api/knowledge-bases', { token: colleague.token })).body.total).toBe(0);
    const shared = await request(server, 'PATCH', `/api/knowledge-bases/${biology}`, {
      token: teacher.token,
      body: { visibility: 'organization' },
    });
    expect(shared.body.visibility).toBe('organization');
    expect(
      (await request(server, 'POST', `/api/knowledge-bases/${biology}/query`, { token: colleague.token, body: { query_text: 'meiosis' } }))
        .status,
    ).toBe(200);
    expect(
      (await request(server, 'PATCH', `/api/knowledge-bases/${biology}`, { token: colleague.token, body: { name: 'Mine now' } })).status,
    ).toBe(403);
    expect((await request(server, 'GET', `/api/knowledge-bases/${biology}`, { token: outsider.token })).status).toBe(404);
    await request(server, 'PATCH', `/api/knowledge-bases/${biology}`, { token: teacher.token, body: { visibility: 'private' } });
  });

  it('fills {context} of a multi-tool assistant with ranked passages, a status and sources', async () => {
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: {
        name: 'Biology tutor',
        prompt_template: 'Context:{context}Question:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'debug-bypass',
          tools: [{ type: 'simple_rag', config: { collections: [String(biology)], top_k: 1 } }],
        },
      },
    });
    expect(assistant.status).toBe(201);
    const model = `lamb_assistant.${assistant.body.id}`;
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: teacher.token,
      body: { model, messages: [{ role: 'user', content: 'Explain mitosis' }] },
    });
    const lastMessage = shownPrompt(answer).at(-1)!.content;
    expect(lastMessage.startsWith(`Context:\n\n${PASSAGES[0]!.text}\n\n## Available Sources\n\n1. [biology.pdf]() (similarity: `)).toBe(
      true,
    );
    expect(lastMessage.endsWith('Question:\n\nExplain mitosis\n\n')).toBe(true);
    expect(answer.body.sources).toHaveLength(1);
    expect(answer.body.sources[0]).toMatchObject({
      title: 'biology.pdf',
      chunk_index: 0,
      page: 3,
      tool: 'simple_rag',
      placeholder: 'context',
    });
    const streamed = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${teacher.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'mitosis' }] }),
    });
    expect(await streamed.text()).toContain(`"message":"querying knowledge base ${biology}"`);
  });

  it('fills {context} of a classic assistant from rag_collections and rag_top_k', async () => {
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: {
        name: 'Classic biology',
        prompt_template: '{context}|{user_input}',
        rag_collections: String(biology),
        rag_top_k: 2,
        metadata: { connector: 'bypass', llm: 'debug-bypass', rag_processor: 'simple_rag' },
      },
    });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: teacher.token,
      body: { model: `lamb_assistant.${assistant.body.id}`, messages: [{ role: 'user', content: 'energy in mitochondria' }] },
    });
    expect(shownPrompt(answer).at(-1)!.content).toContain(PASSAGES[2]!.text);
    expect(answer.body.sources.length).toBeGreaterThan(0);
  });

  it('leaves {context} empty when the owner may not read a collection, and answers anyway', async () => {
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: colleague.token,
      body: {
        name: 'Borrowing tutor',
        prompt_template: '[{context}] {user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'simple-bypass',
          tools: [{ type: 'simple_rag', config: { collections: [String(biology)] } }],
        },
      },
    });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: colleague.token,
      body: { model: `lamb_assistant.${assistant.body.id}`, messages: [{ role: 'user', content: 'mitosis' }] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.choices[0].message.content).toBe('[] \n\nmitosis\n\n');
    expect(answer.body.sources).toEqual([]);
  });

  it('deletes a knowledge base with its documents and chunks', async () => {
    const doomed = (await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Doomed' } })).body.id;
    await addDocument(server, doomed, PASSAGES);
    expect((await request(server, 'DELETE', `/api/knowledge-bases/${doomed}`, { token: teacher.token })).status).toBe(204);
    expect((await request(server, 'GET', `/api/knowledge-bases/${doomed}`, { token: teacher.token })).status).toBe(404);
    expect(await server.store.db.selectFrom('kb_chunks').select('id').where('knowledge_base_id', '=', doomed).execute()).toEqual([]);
    expect(await server.store.db.selectFrom('kb_documents').select('id').where('knowledge_base_id', '=', doomed).execute()).toEqual([]);
  });
});
