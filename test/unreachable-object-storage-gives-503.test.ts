/**
 * When the S3 storage cannot be reached, uploads fail fast with 503 `storage_unavailable`: a
 * clear error naming the storage, never a hang and never the SDK's text, the endpoint or a stack.
 * A file upload and a knowledge-base document upload both answer so; the server keeps serving.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeS3Server } from './fakes/fake-s3-server.js';
import { s3UrlFor, useTestS3Credentials } from './support/blob-drivers.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

describe('object storage that cannot be reached', () => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers uploads with 503 storage_unavailable and no internals, and keeps serving', async () => {
    useTestS3Credentials();
    // A loopback port that was just closed: connections are refused.
    const gone = await startFakeS3Server();
    await gone.close();
    server = await startTestServer('sqlite', { environment: { STORAGE_URL: s3UrlFor(gone), STORAGE_S3_TIMEOUT_MS: '2000' } });
    const token = await loginAsAdmin(server);

    const form = new FormData();
    form.append('file', new Blob(['Notes that cannot be stored.']), 'notes.txt');
    const file = await fetch(`${server.baseUrl}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const fileText = await file.text();
    expect(file.status, fileText).toBe(503);
    expect(JSON.parse(fileText).error).toMatchObject({ code: 'storage_unavailable', type: 'server_error' });

    const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Unstored' } })).body.id as number;
    const documentForm = new FormData();
    documentForm.append('file', new Blob(['# Title\n\nText.']), 'doc.md');
    const document = await fetch(`${server.baseUrl}/api/knowledge-bases/${knowledgeBase}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: documentForm,
    });
    const documentText = await document.text();
    expect(document.status, documentText).toBe(503);
    expect(JSON.parse(documentText).error.code).toBe('storage_unavailable');

    for (const text of [fileText, documentText]) {
      expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|AWS|at .*\.ts/);
    }
    expect((await request(server, 'GET', '/api/files', { token })).status).toBe(200);
  });
});
