/**
 * Proves, on both stores, that a document upload still streaming when its knowledge base is deleted
 * answers 404 not_found instead of the 500 a foreign-key violation used to give (found by the API
 * fuzz suite), and leaves no document behind. The upload is held open by the test until the
 * server is writing its bytes, so the deletion lands in the middle of it every time.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

// These checks look at the local driver's files on disk, so storage is `local` on both stores; the other drivers keep the same contract (blob-storage-drivers-keep-one-contract.test.ts).
const LOCAL_STORAGE = { STORAGE_URL: 'local' };

const BOUNDARY = '----held-open-upload';
const POLL_MS = 10;
const WAIT_LIMIT_MS = 10_000;

async function temporaryUploadIn(folder: string): Promise<boolean> {
  try {
    return (await readdir(folder)).some((name) => name.endsWith('.part'));
  } catch {
    return false;
  }
}

describe.each(TEST_DIALECTS)('an upload into a knowledge base deleted meanwhile on %s', (dialect) => {
  let server: TestServer;
  let teacher: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: LOCAL_STORAGE });
    teacher = await createUser(server, await loginAsAdmin(server), { email: `deleter-${dialect}@merino.test`, role: 'creator' });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('gets 404 not_found with error JSON, and no document is left', async () => {
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: { name: 'Soon gone' } });
    expect(created.status, created.text).toBe(201);
    const knowledgeBaseId: number = created.body.id;

    let finishBody!: () => void;
    const bodyFinished = new Promise<void>((resolve) => (finishBody = resolve));
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(
          encoder.encode(
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="notes.md"\r\nContent-Type: text/markdown\r\n\r\n# Notes\n\n`,
          ),
        );
        await bodyFinished;
        controller.enqueue(encoder.encode(`The heart pumps blood.\n\r\n--${BOUNDARY}--\r\n`));
        controller.close();
      },
    });
    const upload = fetch(`${server.baseUrl}/api/knowledge-bases/${knowledgeBaseId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${teacher.token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body,
      duplex: 'half',
    });

    // The server has checked the knowledge base and is writing the file once its temporary file exists.
    const folder = path.join(server.services.settings.dataDirectory, 'knowledge', String(knowledgeBaseId));
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!(await temporaryUploadIn(folder))) {
      if (Date.now() > deadline) throw new Error('the server never started writing the upload');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const deleted = await request(server, 'DELETE', `/api/knowledge-bases/${knowledgeBaseId}`, { token: teacher.token });
    expect(deleted.status, deleted.text).toBe(204);
    finishBody();

    const response = await upload;
    const text = await response.text();
    expect(response.status, `${text}\n${server.logLines.filter((line) => line.includes('request failed')).join('\n')}`).toBe(404);
    expect(response.headers.get('content-type') ?? '').toContain('application/json');
    expect(JSON.parse(text).error.code).toBe('not_found');
    const documents = await server.store.db
      .selectFrom('kb_documents')
      .select('id')
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .execute();
    expect(documents).toEqual([]);
  });
});
