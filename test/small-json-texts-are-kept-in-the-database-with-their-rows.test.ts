/**
 * Proves, on both dialects, that a JSON text of at most KB_JSON_STORED_TEXT_BYTES_MAX bytes is kept
 * in the store with its document's row (no file in blob storage) while a larger one is a file, and
 * that either way the document is indexed, its content downloads as sent, and deleting it removes
 * its text. A batch of stored texts is complete when the answer comes: each row has its text and
 * its job, and no upload lease is left on it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const STORED_TEXT_BYTES_MAXIMUM = 100;
const SMALL_TEXT = 'Photosynthesis turns light into sugar in the chloroplast.';
const LARGE_TEXT = `Glaciers carve valleys shaped like a U. ${'Moraines mark where the ice once stood. '.repeat(5)}`;

describe.each(TEST_DIALECTS)('JSON texts kept in the store or as files on %s', (dialect) => {
  let server: TestServer;
  let teacher: CreatedUser;
  let knowledgeBase: number;

  const documentsPath = () => `/api/knowledge-bases/${knowledgeBase}/documents`;

  async function storedTextOf(documentId: number): Promise<string | undefined> {
    const row = await server.store.db
      .selectFrom('kb_document_texts')
      .select('text')
      .where('document_id', '=', documentId)
      .executeTakeFirst();
    return row?.text;
  }

  async function downloaded(documentId: number): Promise<string> {
    const content = await fetch(`${server.baseUrl}${documentsPath()}/${documentId}/content`, {
      headers: { authorization: `Bearer ${teacher.token}` },
    });
    return await content.text();
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      environment: { INGESTION_POLL_MS: '20', KB_JSON_STORED_TEXT_BYTES_MAX: String(STORED_TEXT_BYTES_MAXIMUM) },
    });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `stored-text-teacher-${dialect}@merino.test`, role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Earth and life' } });
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('keeps a small text with its row and writes a larger one as a file; both are indexed and download as sent', async () => {
    expect(Buffer.byteLength(SMALL_TEXT)).toBeLessThanOrEqual(STORED_TEXT_BYTES_MAXIMUM);
    expect(Buffer.byteLength(LARGE_TEXT)).toBeGreaterThan(STORED_TEXT_BYTES_MAXIMUM);
    const response = await request(server, 'POST', documentsPath(), {
      token: teacher.token,
      body: {
        documents: [
          { text: SMALL_TEXT, metadata: { title: 'Plants' } },
          { text: LARGE_TEXT, metadata: { title: 'Glaciers' } },
        ],
      },
    });
    expect(response.status, response.text).toBe(202);
    const [small, large] = response.body.documents as Array<{ document_id: number; job_id: number }>;
    for (const queued of [small!, large!])
      expect((await waitForJob(server, teacher.token, knowledgeBase, queued.job_id)).status).toBe('completed');

    expect(await storedTextOf(small!.document_id)).toBe(SMALL_TEXT);
    expect(await server.services.blobs.stat(`knowledge/${knowledgeBase}/${small!.document_id}`)).toBeUndefined();
    expect(await storedTextOf(large!.document_id)).toBeUndefined();
    expect(await server.services.blobs.stat(`knowledge/${knowledgeBase}/${large!.document_id}`)).toBeDefined();

    expect(await downloaded(small!.document_id)).toBe(SMALL_TEXT);
    expect(await downloaded(large!.document_id)).toBe(LARGE_TEXT);
    const query = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: teacher.token,
      body: { query_text: 'photosynthesis chloroplast', top_k: 1 },
    });
    expect(query.body.results[0].metadata).toMatchObject({ title: 'Plants', document_id: small!.document_id });
  });

  it('leaves a batch of stored texts with no upload lease, each row with its text and its job, the moment the answer comes', async () => {
    const response = await request(server, 'POST', documentsPath(), {
      token: teacher.token,
      body: { documents: ['Rivers carry silt.', 'Deltas form at river mouths.', 'Tides rise twice a day.'].map((text) => ({ text })) },
    });
    expect(response.status, response.text).toBe(202);
    const queued = response.body.documents as Array<{ document_id: number; job_id: number }>;
    const documentIds = queued.map((document) => document.document_id);
    const rows = await server.store.db
      .selectFrom('kb_documents')
      .select(['id', 'upload_owner', 'upload_lease_expires_at'])
      .where('id', 'in', documentIds)
      .orderBy('id')
      .execute();
    expect(rows).toEqual(documentIds.map((id) => ({ id, upload_owner: null, upload_lease_expires_at: null })));
    const jobs = await server.store.db
      .selectFrom('ingestion_jobs')
      .select(['id', 'document_id'])
      .where('document_id', 'in', documentIds)
      .execute();
    expect(new Map(jobs.map((job) => [job.document_id, job.id]))).toEqual(
      new Map(queued.map((document) => [document.document_id, document.job_id])),
    );
    for (const documentId of documentIds) expect(await storedTextOf(documentId)).toBeDefined();
  });

  it('removes a stored text with its document', async () => {
    const response = await request(server, 'POST', documentsPath(), {
      token: teacher.token,
      body: { documents: [{ text: 'Volcanoes vent magma through the crust.', metadata: { title: 'Volcanoes' } }] },
    });
    const { document_id: documentId, job_id: jobId } = response.body.documents[0];
    await waitForJob(server, teacher.token, knowledgeBase, jobId);
    expect(await storedTextOf(documentId)).toBeDefined();
    const deleted = await request(server, 'DELETE', `${documentsPath()}/${documentId}`, { token: teacher.token });
    expect(deleted.status, deleted.text).toBe(204);
    expect(await storedTextOf(documentId)).toBeUndefined();
  });
});
