/**
 * Proves document ingestion over real HTTP on both dialects: md, html, txt and PDF uploads are
 * answered 202 with a job that the server's runner completes, after which their chunks are
 * searchable and the document shows completed with its chunk count; a PDF without a text layer
 * fails naming the cause; a PNG named .pdf is refused at upload; the original bytes download
 * as an attachment; deleting a document removes its chunks and file, deleting the knowledge base
 * its folder; jobs can be cancelled and retried; another creator sees none of it.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPdf } from './support/pdf-fixture.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

// These checks look at the local driver's files on disk, so storage is `local` on both stores; the other drivers keep the same contract (blob-storage-drivers-keep-one-contract.test.ts).
const LOCAL_STORAGE = { STORAGE_URL: 'local' };

const MARKDOWN =
  '# Photosynthesis\n\nChloroplasts turn sunlight into sugar during photosynthesis.\n\n## Respiration\n\nCells burn glucose for energy.\n';
const HTML =
  '<!doctype html><html><head><title>Volcanoes</title></head><body><h1>Volcanoes</h1><p>Magma erupts through the crater of a volcano.</p></body></html>';
const TEXT = 'Glaciers carve deep valleys into the mountains over thousands of years.';
const PDF = buildPdf([
  { lines: ['Tectonic plates drift slowly across the mantle.'] },
  { lines: ['Earthquakes happen where plates meet.'] },
]);
const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0,
]);

describe.each(TEST_DIALECTS)('knowledge-base document ingestion on %s', (dialect) => {
  let server: TestServer;
  let teacher: CreatedUser;
  let colleague: CreatedUser;
  let knowledgeBase: number;

  async function query(text: string): Promise<any[]> {
    const response = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: teacher.token,
      body: { query_text: text, top_k: 5 },
    });
    expect(response.status).toBe(200);
    return response.body.results;
  }

  async function ingest(fileName: string, content: Uint8Array | string): Promise<{ documentId: number; job: any }> {
    const uploaded = await uploadDocument(server, teacher.token, knowledgeBase, fileName, content);
    expect(uploaded.status, uploaded.text).toBe(202);
    expect(uploaded.body).toEqual({ document_id: expect.any(Number), job_id: expect.any(Number) });
    return { documentId: uploaded.body.document_id, job: await waitForJob(server, teacher.token, knowledgeBase, uploaded.body.job_id) };
  }

  function storedPath(documentId: number): string {
    return path.join(server.services.settings.dataDirectory, 'knowledge', String(knowledgeBase), String(documentId));
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { ...LOCAL_STORAGE, INGESTION_POLL_MS: '20' } });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `teacher-${dialect}@merino.test`, role: 'creator' });
    colleague = await createUser(server, adminToken, { email: `colleague-${dialect}@merino.test`, role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Earth science', chunk_size: 200, chunk_overlap: 20 },
    });
    expect(created.status).toBe(201);
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('ingests md, html, txt and pdf: jobs complete, chunks are searchable, documents show completed with their chunk count', async () => {
    const cases: Array<[string, Uint8Array | string, string, string]> = [
      ['notes.md', MARKDOWN, 'chloroplasts sunlight', 'Chloroplasts turn sunlight'],
      ['volcano.html', HTML, 'magma crater', 'Magma erupts'],
      ['glaciers.txt', TEXT, 'glaciers valleys', 'Glaciers carve'],
      ['plates.pdf', PDF, 'earthquakes plates meet', 'Earthquakes happen'],
    ];
    const ids: number[] = [];
    for (const [fileName, content, words, expected] of cases) {
      const { documentId, job } = await ingest(fileName, content);
      ids.push(documentId);
      expect(job).toMatchObject({ document_id: documentId, status: 'completed', error: null, attempts: 1, progress: { percentage: 100 } });
      expect(job.progress.total).toBeGreaterThan(0);
      expect(job).toHaveProperty('created_at');
      expect(job).toHaveProperty('updated_at');
      const results = await query(words);
      expect(results.length).toBeGreaterThan(0);
      expect(results[0].data).toContain(expected);
      expect(results[0].metadata).toMatchObject({ filename: fileName, document_id: documentId, knowledge_base_id: knowledgeBase });
    }
    const pdfHits = await query('earthquakes');
    expect(pdfHits[0].metadata.page).toBe(2);

    const listed = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token: teacher.token });
    expect(listed.status).toBe(200);
    for (const id of ids) {
      const document = listed.body.items.find((item: any) => item.id === id);
      expect(document).toMatchObject({ status: 'completed', error: null });
      expect(document.chunk_count).toBeGreaterThan(0);
      expect(existsSync(storedPath(id))).toBe(true);
    }
    const jobs = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs`, { token: teacher.token });
    expect(jobs.body.items.filter((job: any) => job.status === 'completed').length).toBeGreaterThanOrEqual(4);
  });

  it('fails the job of a PDF without a text layer, naming the cause, and marks the document failed', async () => {
    const { documentId, job } = await ingest('scan.pdf', buildPdf([{}]));
    expect(job.status).toBe('failed');
    expect(job.error).toContain('no text layer');
    expect(job.error).toContain('OCR');
    const document = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, {
      token: teacher.token,
    });
    expect(document.body).toMatchObject({ status: 'failed', chunk_count: 0 });
    expect(document.body.error).toContain('no text layer');
  });

  it('refuses a PNG named .pdf at upload with 400, storing nothing', async () => {
    const before = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token: teacher.token });
    const response = await uploadDocument(server, teacher.token, knowledgeBase, 'picture.pdf', PNG);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_file', param: 'file' });
    expect(response.body.error.message).toContain('PNG');
    const after = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token: teacher.token });
    expect(after.body.items.length).toBe(before.body.items.length);
    const leftovers = await readdir(path.join(server.services.settings.dataDirectory, 'knowledge', String(knowledgeBase)));
    expect(leftovers.filter((name) => !/^\d+$/.test(name))).toEqual([]);
  });

  it('downloads the original bytes with their content type as an attachment', async () => {
    const { documentId } = await ingest('download.pdf', PDF);
    const response = await fetch(`${server.baseUrl}/api/knowledge-bases/${knowledgeBase}/documents/${documentId}/content`, {
      headers: { authorization: `Bearer ${teacher.token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="download\.pdf"/);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PDF);
  });

  it('deletes a document with its chunks and its stored file', async () => {
    const { documentId } = await ingest('ocean.md', '# Oceans\n\nThermohaline circulation moves water between the oceans.\n');
    expect((await query('thermohaline')).length).toBe(1);
    const deleted = await request(server, 'DELETE', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, {
      token: teacher.token,
    });
    expect(deleted.status).toBe(204);
    expect(await query('thermohaline')).toEqual([]);
    expect(existsSync(storedPath(documentId))).toBe(false);
    expect(
      (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, { token: teacher.token })).status,
    ).toBe(404);
    expect(
      (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}/content`, { token: teacher.token }))
        .status,
    ).toBe(404);
  });

  it('cancels a pending job and retries it to completion; refuses to cancel or retry an ended job', async () => {
    await server.services.ingestionRunner.stop();
    let jobId: number;
    let documentId: number;
    try {
      const uploaded = await uploadDocument(
        server,
        teacher.token,
        knowledgeBase,
        'deserts.txt',
        'Dunes migrate across the desert with the wind.',
      );
      expect(uploaded.status).toBe(202);
      jobId = uploaded.body.job_id;
      documentId = uploaded.body.document_id;
      const pending = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}`, { token: teacher.token });
      expect(pending.body).toMatchObject({ status: 'pending', attempts: 0, progress: { percentage: 0 } });
      const cancelled = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/cancel`, {
        token: teacher.token,
      });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      expect(
        (await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/cancel`, { token: teacher.token })).status,
      ).toBe(409);
      const document = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, {
        token: teacher.token,
      });
      expect(document.body.status).toBe('cancelled');
      const retried = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/retry`, { token: teacher.token });
      expect(retried.status).toBe(200);
      expect(retried.body.status).toBe('pending');
    } finally {
      server.services.ingestionRunner.start();
    }
    const finished = await waitForJob(server, teacher.token, knowledgeBase, jobId);
    expect(finished).toMatchObject({ status: 'completed', attempts: 1 });
    expect((await query('dunes desert'))[0].metadata.document_id).toBe(documentId);
    expect(
      (await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/retry`, { token: teacher.token })).status,
    ).toBe(409);
    expect(
      (await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/cancel`, { token: teacher.token })).status,
    ).toBe(409);
  });

  it('retries a failed job: it runs again and fails again with the same cause', async () => {
    const { job } = await ingest('blank.pdf', buildPdf([{}, {}]));
    expect(job.status).toBe('failed');
    const retried = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${job.id}/retry`, { token: teacher.token });
    expect(retried.status).toBe(200);
    const again = await waitForJob(server, teacher.token, knowledgeBase, job.id);
    expect(again).toMatchObject({ status: 'failed', attempts: 2 });
    expect(again.error).toContain('no text layer');
  });

  it('answers 404 to another creator for every document and job endpoint', async () => {
    const { documentId, job } = await ingest('private.txt', 'Stalactites hang from the ceilings of limestone caves.');
    const token = colleague.token;
    expect((await uploadDocument(server, token, knowledgeBase, 'intruder.txt', 'Nothing to see.')).status).toBe(404);
    for (const [method, url] of [
      ['GET', `/api/knowledge-bases/${knowledgeBase}/documents`],
      ['GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`],
      ['GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}/content`],
      ['DELETE', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`],
      ['GET', `/api/knowledge-bases/${knowledgeBase}/jobs`],
      ['GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${job.id}`],
      ['POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${job.id}/retry`],
      ['POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${job.id}/cancel`],
    ] as const) {
      expect((await request(server, method, url, { token })).status, `${method} ${url}`).toBe(404);
    }
    expect(
      (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, { token: teacher.token })).status,
    ).toBe(200);
  });

  it('deleting the knowledge base removes its stored files and jobs', async () => {
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Short-lived' } });
    const other = created.body.id as number;
    const uploaded = await uploadDocument(server, teacher.token, other, 'temp.txt', 'Permafrost thaws in warm summers.');
    expect(uploaded.status).toBe(202);
    await waitForJob(server, teacher.token, other, uploaded.body.job_id);
    const folder = path.join(server.services.settings.dataDirectory, 'knowledge', String(other));
    expect(existsSync(path.join(folder, String(uploaded.body.document_id)))).toBe(true);
    expect((await request(server, 'DELETE', `/api/knowledge-bases/${other}`, { token: teacher.token })).status).toBe(204);
    expect(existsSync(folder)).toBe(false);
    const jobs = await server.store.db.selectFrom('ingestion_jobs').select('id').where('knowledge_base_id', '=', other).execute();
    expect(jobs).toEqual([]);
  });
});

describe.each(TEST_DIALECTS)('the document upload limit on %s', (dialect) => {
  let server: TestServer;

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('refuses a document over KB_UPLOAD_MAX_BYTES with 413 and accepts one at the limit', async () => {
    server = await startTestServer(dialect, { environment: { ...LOCAL_STORAGE, KB_UPLOAD_MAX_BYTES: '2048', INGESTION_POLL_MS: '20' } });
    const token = await loginAsAdmin(server);
    const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Small' } })).body.id as number;
    const tooLarge = await uploadDocument(server, token, knowledgeBase, 'big.txt', 'a'.repeat(2049));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('file_too_large');
    const atLimit = await uploadDocument(server, token, knowledgeBase, 'fits.txt', 'b'.repeat(2048));
    expect(atLimit.status).toBe(202);
    expect((await waitForJob(server, token, knowledgeBase, atLimit.body.job_id)).status).toBe('completed');
    const listed = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents`, { token });
    expect(listed.body.items.map((item: any) => item.file_name)).toEqual(['fits.txt']);
  });
});
