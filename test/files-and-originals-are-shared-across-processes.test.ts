/**
 * Several Merino processes on one PostgreSQL, each with its own DATA_DIR as on separate
 * machines, share every uploaded byte through blob storage: a file uploaded to web process A is
 * read by a single-file assistant chatting on web process B; a knowledge-base document uploaded
 * to A (which does not ingest) is ingested by a separate `merino worker`; and its original is
 * downloaded through B, byte for byte. Run with the default storage for PostgreSQL (`postgres`)
 * and with S3 storage (an S3-compatible server over loopback). Nothing lands in A's own folder.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeS3Server, type FakeS3Server } from './fakes/fake-s3-server.js';
import { s3UrlFor } from './support/blob-drivers.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from './support/test-server.js';

const FILE_TEXT = 'Essay guide: every paragraph opens with its claim, then gives the evidence.';
/** Larger than one chunk of the postgres driver's default size, so the download crosses chunks. */
const DOCUMENT_TEXT = `# Volcanic rocks\n\n${'Basalt forms when lava cools quickly at the surface. '.repeat(30_000)}`;

const storages = TEST_DIALECTS.includes('postgres') ? (['postgres', 's3'] as const) : [];

describe.each(storages)('processes with their own data folders sharing %s storage', (storage) => {
  let database: TestDatabase | undefined;
  let s3: FakeS3Server | undefined;
  const processes: ServerProcess[] = [];
  const folders: string[] = [];

  afterEach(async () => {
    for (const started of processes.splice(0)) await started.kill();
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
    await s3?.close();
    await database?.drop();
    database = s3 = undefined;
  });

  async function start(command: string[] = []): Promise<{ process: ServerProcess; folder: string }> {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'merino-machine-'));
    folders.push(folder);
    const environment: Record<string, string> = {
      DATA_DIR: folder,
      // Shared, as docs/deployment.md asks: each machine would otherwise make its own key.
      MERINO_SECRET_KEY: 'a shared secret key for every process',
      INGESTION_IN_WEB: 'false',
      INGESTION_POLL_MS: '20',
    };
    if (s3 !== undefined) {
      Object.assign(environment, {
        STORAGE_URL: s3UrlFor(s3),
        AWS_ACCESS_KEY_ID: 'merino-test-key',
        AWS_SECRET_ACCESS_KEY: 'merino-test-secret',
      });
    }
    const started = await startServerProcess(database!, environment, command);
    processes.push(started);
    return { process: started, folder };
  }

  it('reads a file uploaded on A from B, ingests A’s document on a worker, and downloads its original through B', async () => {
    database = await createTestDatabase('postgres');
    if (storage === 's3') s3 = await startFakeS3Server();
    const a = await start();
    const b = await start();
    const token = (await request(a.process, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body
      .token as string;

    // A single-file tool's file, uploaded on A, read by a chat on B.
    const form = new FormData();
    form.append('file', new Blob([FILE_TEXT]), 'essay-guide.md');
    const uploaded = await fetch(`${a.process.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const filePath = ((await uploaded.json()) as { file_path: string }).file_path;
    const assistant = await request(b.process, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Essay coach',
        prompt_template: 'Guide:{file}\nQuestion:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'simple-bypass',
          tools: [{ type: 'single_file_rag', config: { file_path: filePath } }],
        },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const client = new OpenAI({ apiKey: token, baseURL: `${b.process.baseUrl}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: `lamb_assistant.${assistant.body.id}`,
      messages: [{ role: 'user', content: 'How do I start a paragraph?' }],
    });
    expect(answer.choices[0]!.message.content).toContain(FILE_TEXT);

    // A knowledge-base document uploaded on A; neither web process ingests, a worker does.
    const knowledgeBase = (await request(a.process, 'POST', '/api/knowledge-bases', { token, body: { name: 'Geology' } })).body
      .id as number;
    const document = await uploadDocument(a.process, token, knowledgeBase, 'volcanic.md', DOCUMENT_TEXT);
    expect(document.status, document.text).toBe(202);
    const worker = await start(['worker']);
    const job = await waitForJob(b.process, token, knowledgeBase, document.body.job_id, 60_000);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    expect(worker.process.output()).toContain('worker ready');
    const search = await request(b.process, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token,
      body: { query_text: 'basalt lava', top_k: 1 },
    });
    expect(search.body.results[0].data).toContain('Basalt forms when lava cools');

    // The original, downloaded through B, is exactly what was uploaded to A.
    const download = await fetch(
      `${b.process.baseUrl}/api/knowledge-bases/${knowledgeBase}/documents/${document.body.document_id}/content`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(DOCUMENT_TEXT);

    // Nothing of either upload stayed on A's own disk.
    expect(await readdir(a.folder)).not.toEqual(expect.arrayContaining(['files']));
    expect(await readdir(a.folder)).not.toEqual(expect.arrayContaining(['knowledge']));
    if (s3 !== undefined) expect([...s3.objects.keys()].some((key) => key.startsWith('merino/knowledge/'))).toBe(true);
  }, 120_000);
});
