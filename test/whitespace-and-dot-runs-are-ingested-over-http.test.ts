/**
 * Proves, over real HTTP on both stores, that the uploads of issue 11 (defects 5 and 6) are
 * handled and answered correctly: a `.txt` of `x` + spaces + `x`, a `.md` whose heading ends in a
 * long run of spaces, and an `.html` with a `<pre>` of spaces are ingested (their jobs complete and
 * their text is searchable), and a file named `x` + 78,000 dots + `x.txt` is stored under its
 * sanitised name, in the file store and in a knowledge base. The runs are at least as long as
 * the reproductions; the old expressions stalled the server for seconds on each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const SPACES = ' '.repeat(150_000);
const DOTS = '.'.repeat(78_000);

describe.each(TEST_DIALECTS)('runs of spaces and dots through the HTTP API on %s', (dialect) => {
  let server: TestServer;
  let teacher: CreatedUser;
  let knowledgeBase: number;

  async function ingest(fileName: string, content: string): Promise<{ documentId: number; job: any }> {
    const uploaded = await uploadDocument(server, teacher.token, knowledgeBase, fileName, content);
    expect(uploaded.status, uploaded.text.slice(0, 500)).toBe(202);
    return {
      documentId: uploaded.body.document_id,
      job: await waitForJob(server, teacher.token, knowledgeBase, uploaded.body.job_id, 60_000),
    };
  }

  async function query(text: string): Promise<any[]> {
    const response = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token: teacher.token,
      body: { query_text: text, top_k: 3 },
    });
    expect(response.status).toBe(200);
    return response.body.results;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20' } });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `runs-${dialect}@merino.test`, role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Runs', chunk_size: 1000, chunk_overlap: 0 },
    });
    expect(created.status).toBe(201);
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('ingests a .txt of x + spaces + x: the words are searchable and the spaces make no chunks of their own', async () => {
    const { documentId, job } = await ingest('spaces.txt', `Glaciers${SPACES}carve${SPACES}\nvalleys${SPACES}\n`);
    expect(job).toMatchObject({ status: 'completed', error: null });
    expect((await query('glaciers'))[0].data).toBe('Glaciers');
    expect((await query('valleys'))[0].data).toMatch(/^(?:carve\n)?valleys$/);
    const document = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, {
      token: teacher.token,
    });
    expect(document.body).toMatchObject({ status: 'completed', error: null });
    expect(document.body.chunk_count).toBeGreaterThanOrEqual(2);
    expect(document.body.chunk_count).toBeLessThanOrEqual(3);
  });

  it('ingests a .md whose heading ends in a long run of spaces, under that heading', async () => {
    const { job } = await ingest(
      'heading.md',
      `# Volcanoes${SPACES}\n\nMagma erupts through the crater.\n\n## x${SPACES}#\n\nAsh falls.\n`,
    );
    expect(job).toMatchObject({ status: 'completed', error: null });
    const hits = await query('magma crater');
    expect(hits[0].data).toBe('# Volcanoes\n\nMagma erupts through the crater.');
    expect(hits[0].metadata.heading).toBe('Volcanoes');
    expect((await query('ash'))[0].metadata.heading).toBe('Volcanoes > x');
  });

  it('ingests an .html with a <pre> of spaces and one ending in spaces', async () => {
    const { job } = await ingest(
      'pre.html',
      `<html><body><pre>${SPACES}</pre><pre>tectonic${SPACES}</pre><p>Plates${SPACES}drift.</p></body></html>`,
    );
    expect(job).toMatchObject({ status: 'completed', error: null });
    expect((await query('tectonic'))[0].data).toBe('```\ntectonic\n```\n\nPlates drift.');
  });

  it('stores a file named x + 78,000 dots + x.txt under its sanitised name', async () => {
    const form = new FormData();
    form.append('file', new Blob(['Dots are fine.']), `x${DOTS}x.txt`);
    const response = await fetch(`${server.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${teacher.token}` },
      body: form,
    });
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body).slice(0, 500)).toBe(201);
    expect(body.file_path).toBe(`${teacher.id}/x${'.'.repeat(155)}.txt`);
    const again = new FormData();
    again.append('file', new Blob(['Only dots and spaces.']), `${DOTS}${' '.repeat(1_000)}${DOTS}`);
    const second = await fetch(`${server.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${teacher.token}` },
      body: again,
    });
    const secondBody = (await second.json()) as any;
    // Nothing is left of such a name, so it has no extension to say its type: a clear refusal.
    expect(second.status).toBe(400);
    expect(secondBody.error).toMatchObject({ code: 'invalid_file', param: 'file' });
    expect(secondBody.error.message).toContain('has no extension');
  });

  it('ingests a document named x + 78,000 dots + x.txt, its name stored cut to length with its extension', async () => {
    const { documentId, job } = await ingest(`x${DOTS}x.txt`, 'Dotted names still index their text.');
    expect(job).toMatchObject({ status: 'completed', error: null });
    const document = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}/documents/${documentId}`, {
      token: teacher.token,
    });
    expect(document.status).toBe(200);
    expect(document.body.file_name).toBe(`x${'.'.repeat(250)}.txt`);
  });
});
