/**
 * Proves INGESTION_CHUNKS_MAX: a document that splits into more chunks than one document may have
 * fails its own job with a message naming the count, the limit and what to change, indexes
 * nothing, and leaves the knowledge base working; a document at the limit is indexed whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const CHUNK_LIMIT = 12;
/** Paragraphs of about 90 characters: with chunks of 100 and no overlap, each becomes one chunk. */
function paragraphs(count: number): string {
  return Array.from(
    { length: count },
    (_, index) => `Paragraph ${index + 1} describes how sediment settles into layers at the bottom of a lake.`,
  ).join('\n\n');
}

describe.each(TEST_DIALECTS)('the chunk limit on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let knowledgeBaseId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { INGESTION_CHUNKS_MAX: String(CHUNK_LIMIT) } });
    token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token,
      body: { name: 'Lakes', chunk_size: 100, chunk_overlap: 0 },
    });
    expect(created.status, created.text).toBe(201);
    knowledgeBaseId = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('fails a document that splits into more chunks, naming the count, the limit and the remedy', async () => {
    const uploaded = await uploadDocument(server, token, knowledgeBaseId, 'too-many.txt', paragraphs(40));
    expect(uploaded.status, uploaded.text).toBe(202);
    const job = await waitForJob(server, token, knowledgeBaseId, uploaded.body.job_id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(
      /splits into \d+ chunks, more than the 12 indexed from one document; raise the knowledge base's chunk size or split the document\./,
    );
    const document = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}/documents/${uploaded.body.document_id}`, {
      token,
    });
    expect(document.body.chunk_count).toBe(0);
  });

  it('indexes a document at the limit whole, and queries find it', async () => {
    const uploaded = await uploadDocument(server, token, knowledgeBaseId, 'fits.txt', paragraphs(CHUNK_LIMIT));
    const job = await waitForJob(server, token, knowledgeBaseId, uploaded.body.job_id);
    expect(job.status, job.error).toBe('completed');
    const document = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}/documents/${uploaded.body.document_id}`, {
      token,
    });
    expect(document.body.chunk_count).toBe(CHUNK_LIMIT);
    const hits = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/query`, {
      token,
      body: { query_text: 'Paragraph 12 sediment', top_k: 3 },
    });
    expect(hits.status).toBe(200);
    expect(hits.body.results.length).toBeGreaterThan(0);
  });
});
