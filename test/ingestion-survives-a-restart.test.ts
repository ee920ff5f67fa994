/**
 * Proves ingestion jobs survive a killed process and never run twice, on both dialects: a job
 * left `processing` under an expired lease (its runner died mid-job, stale chunks and all) is
 * resumed from scratch by the next server to start, while a job under a live lease is left to
 * its runner; and two servers sharing one store (one SQLite file, one PostgreSQL database)
 * process a batch of uploads with every job claimed exactly once and no chunk duplicated.
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { insertChunks } from '../src/store/knowledge-repository.js';
import { insertDocument } from '../src/store/knowledge-documents-repository.js';
import { buildPdf } from './support/pdf-fixture.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const FAST_POLLING = { INGESTION_POLL_MS: '20' };

describe.each(TEST_DIALECTS)('ingestion across restarts and runners on %s', (dialect) => {
  let database: TestDatabase | undefined;
  const servers: TestServer[] = [];

  async function startServer(): Promise<TestServer> {
    database ??= await createTestDatabase(dialect);
    const server = await startTestServer(dialect, { database, environment: FAST_POLLING });
    servers.push(server);
    return server;
  }

  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
    await database?.drop();
    database = undefined;
  });

  it('resumes a job a killed process left processing under an expired lease, replacing its stale chunks', async () => {
    // The process that "dies": it creates the knowledge base, then its runner stops for good.
    const first = await startServer();
    await first.services.ingestionRunner.stop();
    const token = await loginAsAdmin(first);
    const knowledgeBase = (await request(first, 'POST', '/api/knowledge-bases', { token, body: { name: 'Geology' } })).body.id as number;
    const db = first.store.db;
    const pdf = buildPdf([{ lines: ['Basalt forms when lava cools quickly.'] }]);
    const stale = new Date(Date.now() - 5 * 60_000).toISOString();
    const documentIds: number[] = [];
    for (const fileName of ['basalt.pdf', 'granite.txt']) {
      const documentId = await insertDocument(db, {
        knowledgeBaseId: knowledgeBase,
        fileName,
        contentType: 'text/plain',
        sizeBytes: 10,
        sourceUrl: null,
        status: 'processing',
        metadata: {},
      });
      documentIds.push(documentId);
      // Through the blob storage the servers share (postgres on PostgreSQL), as an upload would have stored it.
      const original = fileName.endsWith('.pdf') ? pdf : Buffer.from('Granite cools slowly deep underground.');
      await first.services.blobs.write(`knowledge/${knowledgeBase}/${documentId}`, Readable.from([original]));
    }
    const [basalt, granite] = documentIds as [number, number];
    // What the dead runner left: a chunk from an earlier run, and its job mid-way under a lease long expired.
    await insertChunks(db, basalt, [{ knowledge_base_id: knowledgeBase, chunk_index: 0, text: 'stale obsidian text', metadata: '{}' }]);
    const job = (deadline: string) => ({
      knowledge_base_id: knowledgeBase,
      status: 'processing' as const,
      progress_current: 2,
      progress_total: 4,
      message: 'Splitting the text into chunks.',
      error: null,
      attempts: 1,
      lease_owner: 'dead-host:4242:abcdef',
      lease_expires_at: deadline,
      created_at: stale,
      updated_at: stale,
      finished_at: null,
    });
    const expired = await db
      .insertInto('ingestion_jobs')
      .values({ ...job(stale), document_id: basalt })
      .returning('id')
      .executeTakeFirstOrThrow();
    // A job whose runner is alive (its lease runs for another hour) must be left alone.
    const live = await db
      .insertInto('ingestion_jobs')
      .values({ ...job(new Date(Date.now() + 3_600_000).toISOString()), document_id: granite })
      .returning('id')
      .executeTakeFirstOrThrow();
    await first.close();
    servers.splice(0);

    const restarted = await startServer();
    const adminToken = await loginAsAdmin(restarted);
    const finished = await waitForJob(restarted, adminToken, knowledgeBase, expired.id);
    expect(finished).toMatchObject({ status: 'completed', attempts: 2, error: null });
    const hits = await request(restarted, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: adminToken,
      body: { query_text: 'basalt lava obsidian' },
    });
    expect(hits.body.results.map((result: any) => result.data)).toEqual(['Basalt forms when lava cools quickly.']);
    const document = await request(restarted, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${basalt}`, { token: adminToken });
    expect(document.body).toMatchObject({ status: 'completed', chunk_count: 1 });

    const untouched = await request(restarted, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${live.id}`, { token: adminToken });
    expect(untouched.body).toMatchObject({ status: 'processing', attempts: 1 });
  });

  it('two servers on one store process every uploaded document exactly once', async () => {
    const one = await startServer();
    const two = await startServer();
    const token = await loginAsAdmin(one);
    const knowledgeBase = (
      await request(one, 'POST', '/api/knowledge-bases', { token, body: { name: 'Shared queue', chunk_size: 100, chunk_overlap: 10 } })
    ).body.id as number;
    const count = 12;
    // Uploaded all at once, half through each server, so both runners find work waiting together.
    const uploads = await Promise.all(
      Array.from({ length: count }, (_, index) => {
        const text = Array.from(
          { length: 8 },
          (_, line) => `Document ${index} line ${line} describes mineral number ${index * 100 + line} in detail.`,
        ).join('\n\n');
        return uploadDocument(index % 2 === 0 ? one : two, token, knowledgeBase, `doc-${index}.md`, text);
      }),
    );
    for (const uploaded of uploads) expect(uploaded.status, uploaded.text).toBe(202);
    const jobs = uploads.map((uploaded) => uploaded.body.job_id as number);
    for (const jobId of jobs) expect((await waitForJob(one, token, knowledgeBase, jobId, 30_000)).status).toBe('completed');

    const db = one.store.db;
    const rows = await db
      .selectFrom('ingestion_jobs')
      .select(['id', 'attempts', 'status'])
      .where('knowledge_base_id', '=', knowledgeBase)
      .execute();
    expect(rows).toHaveLength(count);
    expect(rows.every((row) => row.attempts === 1 && row.status === 'completed')).toBe(true);
    const documents = await db
      .selectFrom('kb_documents')
      .select(['id', 'chunk_count', 'status'])
      .where('knowledge_base_id', '=', knowledgeBase)
      .execute();
    for (const document of documents) {
      expect(document.status).toBe('completed');
      const chunks = await db.selectFrom('kb_chunks').select('chunk_index').where('document_id', '=', document.id).execute();
      expect(chunks.length).toBe(document.chunk_count);
      expect(new Set(chunks.map((chunk) => chunk.chunk_index)).size).toBe(chunks.length);
      expect(chunks.length).toBeGreaterThan(1);
    }
    // Every claim is logged by the runner that made it, with its jobs: exactly one claim per job across both servers.
    const claimed = [one, two].flatMap((server) =>
      server.logLines
        .filter((line) => line.includes('ingestion jobs claimed'))
        .flatMap((line) => (JSON.parse(line) as { job_ids: number[] }).job_ids),
    );
    expect(claimed).toHaveLength(count);
    expect(new Set(claimed).size).toBe(count);
  });
});
