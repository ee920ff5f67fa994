/**
 * Proves on both stores, against fakes of OpenAI's /v1/embeddings, that every embedding call is
 * counted as a usage row: an upload's ingestion to the person who uploaded it (an organization
 * admin uploading into a teacher's knowledge base, here) with no assistant; a chat's knowledge
 * search to the learner and the assistant asked; a direct knowledge-base query to the person
 * asking. Prompt tokens are the provider's when it reports them, and otherwise an estimate of a
 * token per four characters, marked `completed:estimated_tokens`. Before this, no embedding call
 * wrote a usage row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens, type RecordedRequest } from './fakes/fake-http.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const EMBEDDING_MODEL = 'text-embedding-3-small';
const NOTES = [
  '# Volcanoes\n\nMagma rises through the crust and erupts from a volcano as lava.',
  '# Glaciers\n\nGlaciers carve valleys as the ice slowly flows downhill.',
  '# Rivers\n\nRivers erode their banks and carry sediment to the sea.',
].join('\n\n');

/** The texts of an embeddings request, as the provider counted them. */
function inputsOf(recorded: RecordedRequest): string[] {
  const input = (recorded.body as { input: string | string[] }).input;
  return Array.isArray(input) ? input : [input];
}

describe.each(TEST_DIALECTS)('embedding calls counted as usage on %s', (dialect) => {
  let reporting: FakeOpenAiServer;
  let silent: FakeOpenAiServer;
  let server: TestServer;
  let systemAdmin: string;
  let organizationId: number;
  let teacher: CreatedUser;
  let organizationAdmin: CreatedUser;
  let learner: CreatedUser;
  let knowledgeBase: number;

  const embeddingRequests = (fake: FakeOpenAiServer) => fake.requests.filter((recorded) => recorded.path.endsWith('/embeddings'));
  const embeddingRows = () =>
    server.store.db.selectFrom('usage_logs').selectAll().where('model', '=', EMBEDDING_MODEL).orderBy('id').execute();
  const setProvider = async (fake: FakeOpenAiServer) => {
    const patched = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: systemAdmin,
      body: { providers: { openai: { base_url: fake.baseUrl } } },
    });
    expect(patched.status, patched.text).toBe(200);
  };
  const query = (token: string, requestId: string, text: string) =>
    request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token,
      headers: { 'x-request-id': requestId },
      body: { query_text: text, top_k: 2, plugin_params: { mode: 'vector' } },
    });

  beforeAll(async () => {
    reporting = await startFakeOpenAiServer();
    silent = await startFakeOpenAiServer({ omitEmbeddingUsage: true });
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        OPENAI_API_KEY: 'sk-embedding-usage',
        OPENAI_BASE_URL: reporting.baseUrl,
        RUN_RECORD_WINDOW_MS: '0',
        EMBEDDING_BATCH_SIZE: '2',
      },
    });
    systemAdmin = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id;
    teacher = await createUser(server, systemAdmin, { email: `embedding-usage-teacher-${dialect}@merino.test`, role: 'creator' });
    organizationAdmin = await createUser(server, systemAdmin, { email: `embedding-usage-admin-${dialect}@merino.test`, role: 'admin' });
    learner = await createUser(server, systemAdmin, { email: `embedding-usage-learner-${dialect}@merino.test`, role: 'learner' });
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Earth science', chunk_size: 100, chunk_overlap: 0, embeddings: { connector: 'openai', model: EMBEDDING_MODEL } },
    });
    expect(created.status, created.text).toBe(201);
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(reporting)?.close();
    await possiblyUnset(silent)?.close();
  });

  it("counts an upload's embeddings to the person who uploaded it, with no assistant, at the provider's tokens", async () => {
    const before = embeddingRequests(reporting).length;
    const uploaded = await uploadDocument(server, organizationAdmin.token, knowledgeBase, 'earth.md', NOTES);
    expect(uploaded.status, uploaded.text).toBe(202);
    expect((await waitForJob(server, organizationAdmin.token, knowledgeBase, uploaded.body.job_id)).status).toBe('completed');
    const calls = embeddingRequests(reporting).slice(before);
    expect(calls.length).toBeGreaterThan(1);
    const rows = await embeddingRows();
    expect(rows).toHaveLength(calls.length);
    for (const row of rows)
      expect(row).toMatchObject({ organization_id: organizationId, user_id: organizationAdmin.id, assistant_id: 0, outcome: 'completed' });
    const reported = calls.flatMap(inputsOf).reduce((sum, text) => sum + estimateTokens(text), 0);
    expect(rows.reduce((sum, row) => sum + row.prompt_tokens, 0)).toBe(reported);
    expect(rows.every((row) => row.completion_tokens === 0 && row.total_tokens === row.prompt_tokens)).toBe(true);
  });

  it("counts a chat's query embedding to the learner and the assistant asked", async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token: teacher.token,
      body: {
        name: 'Earth tutor',
        system_prompt: 'Help.',
        prompt_template: 'Notes: {context}\n\nQuestion: {user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tools: [{ type: 'simple_rag', enabled: true, config: { collections: [String(knowledgeBase)] } }],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const assistant = created.body.id as number;
    const published = await request(server, 'PUT', `/api/assistants/${assistant}/publish`, {
      token: teacher.token,
      body: { published: true },
    });
    expect(published.status, published.text).toBe(200);
    const requestId = `embedding-chat-${dialect}`;
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: learner.token,
      headers: { 'x-request-id': requestId },
      body: { model: `lamb_assistant.${assistant}`, messages: [{ role: 'user', content: 'How do volcanoes erupt?' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    const rows = (await embeddingRows()).filter((row) => row.request_id === requestId);
    expect(rows).toHaveLength(1);
    const embedded = inputsOf(embeddingRequests(reporting).at(-1)!);
    expect(rows[0]).toMatchObject({
      organization_id: organizationId,
      user_id: learner.id,
      assistant_id: assistant,
      prompt_tokens: embedded.reduce((sum, text) => sum + estimateTokens(text), 0),
      outcome: 'completed',
    });
    // The learner's own report shows the embedding beside the chat model's call.
    const report = await request(server, 'GET', `/api/usage?group_by=model`, { token: learner.token });
    expect(report.status, report.text).toBe(200);
    expect(report.body.groups.find((group: { key: string }) => group.key === EMBEDDING_MODEL)).toMatchObject({ requests: 1 });
  });

  it('counts a direct knowledge-base query to the person asking, and estimates tokens the provider did not report', async () => {
    const reportedQuery = await query(teacher.token, `embedding-query-${dialect}`, 'Which rivers carry sediment?');
    expect(reportedQuery.status, reportedQuery.text).toBe(200);
    await setProvider(silent);
    try {
      const text = 'Which rocks form from lava?';
      const estimatedQuery = await query(teacher.token, `embedding-estimate-${dialect}`, text);
      expect(estimatedQuery.status, estimatedQuery.text).toBe(200);
      const rows = await embeddingRows();
      expect(rows.find((row) => row.request_id === `embedding-query-${dialect}`)).toMatchObject({
        user_id: teacher.id,
        assistant_id: 0,
        prompt_tokens: estimateTokens('Which rivers carry sediment?'),
        outcome: 'completed',
      });
      expect(rows.find((row) => row.request_id === `embedding-estimate-${dialect}`)).toMatchObject({
        user_id: teacher.id,
        assistant_id: 0,
        prompt_tokens: Math.ceil(text.length / 4),
        outcome: 'completed:estimated_tokens',
      });
    } finally {
      await setProvider(reporting);
    }
  });
});
