/**
 * Proves LAMB's JSON form of adding documents over real HTTP on both dialects: each text becomes
 * a document with its own job, named by its metadata, whose chunks carry that metadata and its
 * source URL; its content downloads as the text sent; bad bodies and too many documents get a 400
 * naming the problem and store nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const JSON_DOCUMENTS_MAXIMUM = 3;

describe.each(TEST_DIALECTS)('JSON documents added to a knowledge base on %s', (dialect) => {
  let server: TestServer;
  let teacher: CreatedUser;
  let knowledgeBase: number;

  const documentsPath = () => `/api/knowledge-bases/${knowledgeBase}/documents`;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      environment: { INGESTION_POLL_MS: '20', KB_JSON_DOCUMENTS_MAX: String(JSON_DOCUMENTS_MAXIMUM) },
    });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `json-teacher-${dialect}@merino.test`, role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Course notes' } });
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('makes each text a document with a job; chunks carry the metadata and source URL', async () => {
    const response = await request(server, 'POST', documentsPath(), {
      token: teacher.token,
      body: {
        documents: [
          {
            text: 'The mitochondrion is where cellular respiration releases energy.',
            metadata: { title: 'Cell biology', source_url: 'https://example.org/cells', week: 3 },
          },
          { text: '# Rivers\n\nMeanders form where a river erodes its outer bank.', metadata: { filename: 'rivers.md' } },
        ],
      },
    });
    expect(response.status, response.text).toBe(202);
    expect(response.body.documents).toEqual([
      { document_id: expect.any(Number), job_id: expect.any(Number) },
      { document_id: expect.any(Number), job_id: expect.any(Number) },
    ]);
    for (const queued of response.body.documents)
      expect((await waitForJob(server, teacher.token, knowledgeBase, queued.job_id)).status).toBe('completed');

    const listed = await request(server, 'GET', documentsPath(), { token: teacher.token });
    expect(listed.body.items.map((item: any) => item.file_name).sort()).toEqual(['Cell biology.txt', 'rivers.md']);

    const query = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: teacher.token,
      body: { query_text: 'cellular respiration energy', top_k: 1 },
    });
    expect(query.body.results[0].metadata).toMatchObject({
      title: 'Cell biology',
      week: 3,
      source_url: 'https://example.org/cells',
      filename: 'Cell biology.txt',
    });

    const content = await fetch(`${server.baseUrl}${documentsPath()}/${response.body.documents[1].document_id}/content`, {
      headers: { authorization: `Bearer ${teacher.token}` },
    });
    expect(await content.text()).toBe('# Rivers\n\nMeanders form where a river erodes its outer bank.');
  });

  it.each([
    { problem: 'no documents', body: { documents: [] }, param: 'documents' },
    { problem: 'a document without text', body: { documents: [{ metadata: {} }] }, param: 'documents[0].text' },
    { problem: 'an unknown field', body: { documents: [{ text: 'ok', extra: 1 }] }, param: 'documents[0].extra' },
    {
      problem: 'metadata that is not an object',
      body: { documents: [{ text: 'ok', metadata: 'not an object' }] },
      param: 'documents[0].metadata',
    },
    { problem: 'blank text', body: { documents: [{ text: '   ' }] }, param: 'documents[0].text' },
    {
      problem: 'metadata over 8 KiB',
      body: { documents: [{ text: 'ok', metadata: { note: 'x'.repeat(9_000) } }] },
      param: 'documents[0].metadata',
    },
  ])('refuses $problem with a 400 naming $param, storing nothing', async ({ body, param }) => {
    const before = (await request(server, 'GET', documentsPath(), { token: teacher.token })).body.items.length;
    const response = await request(server, 'POST', documentsPath(), { token: teacher.token, body });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.param).toBe(param);
    expect((await request(server, 'GET', documentsPath(), { token: teacher.token })).body.items).toHaveLength(before);
  });

  it('refuses more than KB_JSON_DOCUMENTS_MAX documents at once and accepts exactly that many', async () => {
    const many = (count: number) => ({ documents: Array.from({ length: count }, (_, index) => ({ text: `Passage number ${index}.` })) });
    const tooMany = await request(server, 'POST', documentsPath(), { token: teacher.token, body: many(JSON_DOCUMENTS_MAXIMUM + 1) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toContain(String(JSON_DOCUMENTS_MAXIMUM));
    const atLimit = await request(server, 'POST', documentsPath(), { token: teacher.token, body: many(JSON_DOCUMENTS_MAXIMUM) });
    expect(atLimit.status).toBe(202);
    expect(atLimit.body.documents).toHaveLength(JSON_DOCUMENTS_MAXIMUM);
  });
});
