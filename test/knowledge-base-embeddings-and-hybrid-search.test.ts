/**
 * Proves embeddings end to end over real HTTP on both dialects, against fakes of OpenAI's
 * /v1/embeddings and Ollama's /api/embed: a knowledge base created with an embedding model gets
 * a vector per chunk, computed in batches that the job's progress counts; it can be queried by
 * vector, full text or hybrid (the default) with similarities in [0, 1]; when the provider is
 * down, the default falls back to full text while an explicit vector query and an ingestion fail
 * with a clear error; deleting the knowledge base removes its vectors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PROVIDER_KEY = 'sk-embedding-provider-key-0123456789';
const BATCH_SIZE = 2;
const UNREACHABLE_PROVIDER = 'http://127.0.0.1:9/v1';
const NOTES = [
  '# Volcanoes\n\nMagma rises through the crust and erupts from a volcano as lava.',
  '# Glaciers\n\nGlaciers carve valleys as the ice slowly flows downhill.',
  '# Deserts\n\nDeserts receive very little rain and have sparse vegetation.',
  '# Rivers\n\nRivers erode their banks and carry sediment to the sea.',
  '# Earthquakes\n\nEarthquakes shake the ground when tectonic plates slip.',
].join('\n\n');

describe.each(TEST_DIALECTS)('knowledge-base embeddings and hybrid search on %s', (dialect) => {
  let openai: FakeOpenAiServer;
  let ollama: FakeOllamaServer;
  let server: TestServer;
  let adminToken: string;
  let organizationId: number;
  let teacher: CreatedUser;
  let knowledgeBase: number;

  async function createKnowledgeBase(body: Record<string, unknown>): Promise<number> {
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { chunk_size: 100, chunk_overlap: 0, ...body },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.id;
  }

  async function ingest(knowledgeBaseId: number, fileName: string, content: string): Promise<any> {
    const uploaded = await uploadDocument(server, teacher.token, knowledgeBaseId, fileName, content);
    expect(uploaded.status, uploaded.text).toBe(202);
    return waitForJob(server, teacher.token, knowledgeBaseId, uploaded.body.job_id);
  }

  const query = (knowledgeBaseId: number, body: Record<string, unknown>) =>
    request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/query`, { token: teacher.token, body });
  const embeddingRequests = () => openai.requests.filter((recorded) => recorded.path.endsWith('/embeddings'));
  const setOpenAiBaseUrl = (baseUrl: string | null) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { providers: { openai: { base_url: baseUrl } } },
    });

  beforeAll(async () => {
    openai = await startFakeOpenAiServer({ apiKey: PROVIDER_KEY });
    ollama = await startFakeOllamaServer();
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        OPENAI_API_KEY: PROVIDER_KEY,
        OPENAI_BASE_URL: openai.baseUrl,
        OLLAMA_BASE_URL: ollama.baseUrl,
        EMBEDDING_BATCH_SIZE: String(BATCH_SIZE),
      },
    });
    adminToken = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    teacher = await createUser(server, adminToken, { email: `embeddings-${dialect}@merino.test`, role: 'creator' });
    knowledgeBase = await createKnowledgeBase({
      name: 'Earth science',
      embeddings: { connector: 'openai', model: 'text-embedding-3-small' },
    });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(openai)?.close();
    await possiblyUnset(ollama)?.close();
  });

  it('embeds every chunk in batches of EMBEDDING_BATCH_SIZE, counted in the job progress', async () => {
    const job = await ingest(knowledgeBase, 'earth.md', NOTES);
    expect(job.status, job.error).toBe('completed');
    const chunkCount = (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}`, { token: teacher.token })).body.chunk_count;
    expect(chunkCount).toBeGreaterThanOrEqual(5);
    const batches = Math.ceil(chunkCount / BATCH_SIZE);
    expect(job.progress).toMatchObject({ current: 4 + batches, total: 4 + batches, percentage: 100 });
    const sent = embeddingRequests().map((recorded) => (recorded.body as { input: string[] }).input.length);
    expect(sent).toHaveLength(batches);
    expect(Math.max(...sent)).toBeLessThanOrEqual(BATCH_SIZE);
    expect(embeddingRequests().every((recorded) => recorded.headers.authorization === `Bearer ${PROVIDER_KEY}`)).toBe(true);

    const vectors = await server.store.db
      .selectFrom('kb_chunk_embeddings')
      .select(['chunk_id', 'dimensions'])
      .where('knowledge_base_id', '=', knowledgeBase)
      .execute();
    expect(vectors).toHaveLength(chunkCount);
    const view = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}`, { token: teacher.token });
    expect(view.body.embeddings).toEqual({ connector: 'openai', model: 'text-embedding-3-small', dimensions: 64 });
  });

  it.each(['vector', 'hybrid', 'full_text'])('finds the relevant chunk first in %s mode, with similarities in [0, 1]', async (mode) => {
    const response = await query(knowledgeBase, { query_text: 'How do glaciers carve valleys?', top_k: 3, plugin_params: { mode } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.mode).toBe(mode);
    expect(response.body.results[0].data).toContain('Glaciers carve valleys');
    for (const result of response.body.results) expect(result.similarity >= 0 && result.similarity <= 1).toBe(true);
  });

  it('uses hybrid search by default for a knowledge base with embeddings, and honours the threshold', async () => {
    const response = await query(knowledgeBase, { query_text: 'volcano magma lava eruption', top_k: 5 });
    expect(response.body.mode).toBe('hybrid');
    expect(response.body.results[0].data).toContain('Magma');
    const strict = await query(knowledgeBase, { query_text: 'volcano magma lava eruption', top_k: 5, threshold: 0.99 });
    expect(strict.body.results.every((result: any) => result.similarity >= 0.99)).toBe(true);
    expect(strict.body.count).toBeLessThan(response.body.count);
  });

  it('embeds with Ollama /api/embed when the knowledge base names the ollama connector', async () => {
    const local = await createKnowledgeBase({ name: 'Local model', embeddings: { connector: 'ollama', model: 'nomic-embed-text' } });
    expect((await ingest(local, 'earth.md', NOTES)).status).toBe('completed');
    expect(
      ollama.requests.some(
        (recorded) => recorded.path === '/api/embed' && (recorded.body as { model: string }).model === 'nomic-embed-text',
      ),
    ).toBe(true);
    const response = await query(local, { query_text: 'tectonic plates earthquakes', top_k: 1, plugin_params: { mode: 'vector' } });
    expect(response.body.results[0].data).toContain('Earthquakes');
  });

  it('refuses vector mode with a 400 naming plugin_params.mode for a knowledge base without embeddings', async () => {
    const plain = await createKnowledgeBase({ name: 'Full text only' });
    const response = await query(plain, { query_text: 'anything', plugin_params: { mode: 'vector' } });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('plugin_params.mode');
    expect((await query(plain, { query_text: 'anything' })).body.mode).toBe('full_text');
  });

  it('falls back to full text when the provider is down, but fails an explicit vector query and an ingestion clearly', async () => {
    expect((await setOpenAiBaseUrl(UNREACHABLE_PROVIDER)).status).toBe(200);
    try {
      const fallback = await query(knowledgeBase, { query_text: 'How do glaciers carve valleys?', top_k: 3 });
      expect(fallback.status).toBe(200);
      expect(fallback.body.mode).toBe('full_text');
      expect(fallback.body.results[0].data).toContain('Glaciers');

      const vector = await query(knowledgeBase, { query_text: 'How do glaciers carve valleys?', plugin_params: { mode: 'vector' } });
      expect(vector.status).toBe(502);
      expect(vector.text).not.toContain(PROVIDER_KEY);
      expect(vector.text).not.toContain('glaciers');

      const job = await ingest(knowledgeBase, 'more.md', '# Oceans\n\nOceans cover most of the planet.');
      expect(job.status).toBe('failed');
      expect(job.error).toContain('Computing the embeddings with openai model "text-embedding-3-small" failed');
      expect(job.error).not.toContain(PROVIDER_KEY);
    } finally {
      await setOpenAiBaseUrl(null);
    }
  });

  it('removes the vectors with the knowledge base', async () => {
    const doomed = await createKnowledgeBase({ name: 'Doomed', embeddings: { connector: 'openai', model: 'text-embedding-3-small' } });
    expect((await ingest(doomed, 'earth.md', NOTES)).status).toBe('completed');
    const countVectors = async () =>
      Number(
        (
          await server.store.db
            .selectFrom('kb_chunk_embeddings')
            .select((eb) => eb.fn.countAll().as('count'))
            .where('knowledge_base_id', '=', doomed)
            .executeTakeFirstOrThrow()
        ).count,
      );
    expect(await countVectors()).toBeGreaterThan(0);
    expect((await request(server, 'DELETE', `/api/knowledge-bases/${doomed}`, { token: teacher.token })).status).toBe(204);
    expect(await countVectors()).toBe(0);
  });
});
