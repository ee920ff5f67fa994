/**
 * Proves on both dialects that a server starting after a `kill -9` during uploads removes what
 * the killed process left, and nothing else: the temporary `.upload-*.part` files of the uploads
 * it was receiving when killed (a real server process, killed mid-body), and the states a kill
 * between two steps of an upload leaves (made here by hand, since no timing hits them reliably):
 * a staged knowledge-base upload, stored bytes without a row, bytes of a deleted file, a file
 * named by a document that no longer exists, a document that never got its job (written, as
 * before upload leases, without an owner: marked failed, not deleted). Leftovers are
 * handled only once older than UPLOAD_LEFTOVER_GRACE_MS, so another process's upload in progress
 * over the same store and data folder survives the sweep and completes; live files and
 * documents stay whatever their age.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { startSlowUpload } from './support/slow-upload.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

// These checks look at the local driver's files on disk, so storage is `local` on both stores; the other drivers keep the same contract (blob-storage-drivers-keep-one-contract.test.ts).
const LOCAL_STORAGE = { STORAGE_URL: 'local' };

const TWO_HOURS = 2 * 3_600_000;

async function temporaryFiles(folder: string): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names.filter((name) => /^\.upload-[0-9a-f]{32}\.part$/.test(name));
}

async function waitForTemporaryFile(folder: string, besides: readonly string[] = []): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = (await temporaryFiles(folder)).find((name) => !besides.includes(name));
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no upload in progress appeared in ${folder}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function age(filePath: string): Promise<void> {
  const past = new Date(Date.now() - TWO_HOURS);
  await utimes(filePath, past, past);
}

describe.each(TEST_DIALECTS)('start-up after a kill during uploads on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let killed: ServerProcess | undefined;
  const servers: TestServer[] = [];

  afterEach(async () => {
    await killed?.kill();
    for (const server of servers.splice(0)) await server.close();
    await database?.drop();
    database = killed = undefined;
  });

  it('removes what the killed process left once older than the grace period, and keeps live uploads, files and documents', async () => {
    database = await createTestDatabase(dialect);
    const environment = { ...LOCAL_STORAGE, INGESTION_POLL_MS: '20' };
    killed = await startServerProcess(database, environment);
    const token = (await request(killed, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body
      .token as string;
    const adminId = (await request(killed, 'GET', '/api/me', { token })).body.id as number;
    const knowledgeBase = (await request(killed, 'POST', '/api/knowledge-bases', { token, body: { name: 'Crash site' } })).body
      .id as number;
    const filesFolder = path.join(database.dataDirectory, 'files', String(adminId));
    const knowledgeFolder = path.join(database.dataDirectory, 'knowledge', String(knowledgeBase));

    // What must survive: a live file, a deleted file's row (its bytes must go), and an ingested document.
    const keptFile = await fetch(`${killed.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: formWith('kept.txt', 'Kept notes.'),
    });
    expect(keptFile.status).toBe(201);
    const deletedFile = await fetch(`${killed.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: formWith('deleted.txt', 'Deleted notes.'),
    });
    const deletedFileId = ((await deletedFile.json()) as { id: number }).id;
    const keptDocument = await uploadDocument(killed, token, knowledgeBase, 'kept.md', '# Kept\n\nBasalt is a volcanic rock.');
    expect((await waitForJob(killed, token, knowledgeBase, keptDocument.body.job_id)).status).toBe('completed');

    // Two uploads are streaming in when the process is killed.
    startSlowUpload(killed.baseUrl, '/api/files', token, 'cut.txt', 'The first half of a file ');
    startSlowUpload(
      killed.baseUrl,
      `/api/knowledge-bases/${knowledgeBase}/documents`,
      token,
      'cut.md',
      '# Cut\n\nThe first half of a document ',
    );
    const cutFilePart = await waitForTemporaryFile(filesFolder);
    const cutDocumentPart = await waitForTemporaryFile(knowledgeFolder);
    await killed.kill();
    killed = undefined;

    // The states a kill between two steps of an upload or deletion leaves behind.
    const observer = await startTestServer(dialect, { database, environment });
    servers.push(observer);
    await observer.services.ingestionRunner.stop();
    const db = observer.store.db;
    const deletedRow = await db.selectFrom('files').select('stored_name').where('id', '=', deletedFileId).executeTakeFirstOrThrow();
    await db.updateTable('files').set({ deleted_at: new Date().toISOString() }).where('id', '=', deletedFileId).execute();
    const unnamedStoredFile = `${randomBytes(16).toString('hex')}.txt`;
    await writeFile(path.join(filesFolder, unnamedStoredFile), 'Bytes whose row was never written.');
    const stagedUpload = `${randomBytes(16).toString('hex')}.upload`;
    await writeFile(path.join(knowledgeFolder, stagedUpload), 'A staged upload never named by its document.');
    await writeFile(path.join(knowledgeFolder, '999999'), 'The file of a document deleted meanwhile.');
    const longAgo = new Date(Date.now() - TWO_HOURS).toISOString();
    const jobless = await db
      .insertInto('kb_documents')
      .values({
        knowledge_base_id: knowledgeBase,
        file_name: 'jobless.txt',
        content_type: 'text/plain',
        size_bytes: 7,
        source_url: null,
        status: 'pending',
        error: null,
        chunk_count: 0,
        page_count: null,
        metadata: '{}',
        created_at: longAgo,
        updated_at: longAgo,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeFile(path.join(knowledgeFolder, String(jobless.id)), 'Jobless');
    // Another process's upload that is just as far along, but now: it must be left alone.
    const now = new Date().toISOString();
    const freshJobless = await db
      .insertInto('kb_documents')
      .values({
        knowledge_base_id: knowledgeBase,
        file_name: 'fresh.txt',
        content_type: 'text/plain',
        size_bytes: 5,
        source_url: null,
        status: 'pending',
        error: null,
        chunk_count: 0,
        page_count: null,
        metadata: '{}',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await writeFile(path.join(knowledgeFolder, String(freshJobless.id)), 'Fresh');

    // Time passes beyond the grace period for everything on disk so far, live files included.
    for (const folder of [filesFolder, knowledgeFolder]) {
      for (const name of await readdir(folder)) if (name !== String(freshJobless.id)) await age(path.join(folder, name));
    }
    const keptFileRow = await db
      .selectFrom('files')
      .select('stored_name')
      .where('deleted_at', 'is', null)
      .where('owner_id', '=', adminId)
      .executeTakeFirstOrThrow();

    // A live upload into another process sharing the store and the data folder.
    const live = startSlowUpload(observer.baseUrl, '/api/files', token, 'live.txt', 'A live upload, first half ');
    const livePart = await waitForTemporaryFile(filesFolder, [cutFilePart]);

    const restarted = await startTestServer(dialect, { database, environment });
    servers.push(restarted);

    const filesLeft = await readdir(filesFolder);
    const knowledgeLeft = await readdir(knowledgeFolder);
    expect(filesLeft).not.toContain(cutFilePart);
    expect(knowledgeLeft).not.toContain(cutDocumentPart);
    expect(filesLeft).not.toContain(unnamedStoredFile);
    expect(filesLeft).not.toContain(deletedRow.stored_name);
    expect(knowledgeLeft).not.toContain(stagedUpload);
    expect(knowledgeLeft).not.toContain('999999');
    expect(knowledgeLeft).not.toContain(String(jobless.id));
    // Not deleted behind the teacher's back: marked failed with the reason, its bytes gone; uploading again is the retry.
    expect(await db.selectFrom('kb_documents').select(['status', 'error']).where('id', '=', jobless.id).executeTakeFirst()).toEqual({
      status: 'failed',
      error: 'the upload was interrupted',
    });
    // Kept: the live file, the ingested document, the fresh job-less document, the upload in progress.
    expect(filesLeft).toContain(keptFileRow.stored_name);
    expect(knowledgeLeft).toContain(String(keptDocument.body.document_id));
    expect(knowledgeLeft).toContain(String(freshJobless.id));
    expect(await db.selectFrom('kb_documents').select('status').where('id', '=', freshJobless.id).executeTakeFirst()).toEqual({
      status: 'pending',
    });
    expect(filesLeft).toContain(livePart);
    expect(restarted.logLines.some((line) => line.includes('removed the leftovers of interrupted uploads'))).toBe(true);

    const finished = await live.finish('and its second half.');
    expect(finished.status).toBe(201);
    expect(existsSync(path.join(filesFolder, livePart))).toBe(false);
    const restartedToken = await loginAsAdmin(restarted);
    const listed = await request(restarted, 'GET', '/api/files', { token: restartedToken });
    expect(JSON.stringify(listed.body)).toContain('live.txt');
    const kept = await request(
      restarted,
      'GET',
      `/api/knowledge-bases/${knowledgeBase}/documents/${keptDocument.body.document_id}/content`,
      {
        token: restartedToken,
      },
    );
    expect(kept.text).toBe('# Kept\n\nBasalt is a volcanic rock.');
    // Three server starts, a kill, an ingestion and two sweeps: more than the default 30 s on a busy machine.
  }, 120_000);
});

function formWith(fileName: string, text: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([new TextEncoder().encode(text)]), fileName);
  return form;
}
