/**
 * Proves on both dialects that the JSON form of `POST /api/knowledge-bases/{id}/documents` is
 * read only up to KB_JSON_BODY_MAX_BYTES (default 10 MiB, against the 49 MB bodies that used to
 * be read whole): a larger body gets a 413 naming the limit and the way around it, whether its
 * length is declared or it arrives chunked, while a body at the limit is accepted and a multipart
 * upload larger than the JSON limit still streams in under KB_UPLOAD_MAX_BYTES.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const JSON_LIMIT = 65_536;

/** A `{documents: [{text}]}` body of exactly `size` bytes. */
function jsonBodyOf(size: number): string {
  const empty = JSON.stringify({ documents: [{ text: '' }] });
  const text = 'Granite cools slowly. '.repeat(Math.ceil(size / 22)).slice(0, size - empty.length);
  const body = JSON.stringify({ documents: [{ text }] });
  expect(Buffer.byteLength(body)).toBe(size);
  return body;
}

function expectLimitNamed(response: { status: number; body: any }, limit: number): void {
  expect(response.status).toBe(413);
  expect(response.body.error).toMatchObject({ code: 'body_too_large', details: { max_bytes: limit } });
  expect(response.body.error.message).toBe(
    `The JSON body is larger than the limit of ${limit} bytes (KB_JSON_BODY_MAX_BYTES). Send fewer texts per request, or upload large documents as files (multipart/form-data).`,
  );
}

describe.each(TEST_DIALECTS)('the JSON body limit of knowledge-base documents on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let knowledgeBase: number;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20', KB_JSON_BODY_MAX_BYTES: String(JSON_LIMIT) } });
    token = await loginAsAdmin(server);
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Bounded' } })).body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('accepts a JSON body of exactly the limit', async () => {
    const accepted = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token,
      rawBody: jsonBodyOf(JSON_LIMIT),
    });
    expect(accepted.status, accepted.text).toBe(202);
    expect((await waitForJob(server, token, knowledgeBase, accepted.body.documents[0].job_id)).status).toBe('completed');
  });

  it('refuses a JSON body one byte over the limit with a 413 naming it', async () => {
    expectLimitNamed(
      await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, { token, rawBody: jsonBodyOf(JSON_LIMIT + 1) }),
      JSON_LIMIT,
    );
  });

  it('refuses a chunked JSON body (no declared length) past the limit the same way', async () => {
    const body = new TextEncoder().encode(jsonBodyOf(JSON_LIMIT * 2));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let start = 0; start < body.length; start += 8_192) controller.enqueue(body.subarray(start, start + 8_192));
        controller.close();
      },
    });
    const response = await fetch(`${server.baseUrl}/api/knowledge-bases/${knowledgeBase}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    expectLimitNamed({ status: response.status, body: await response.json() }, JSON_LIMIT);
  });

  it('still accepts a multipart upload larger than the JSON limit', async () => {
    const text = 'Obsidian is volcanic glass formed when lava cools very quickly. '.repeat(Math.ceil((JSON_LIMIT * 2) / 64));
    const uploaded = await uploadDocument(server, token, knowledgeBase, 'large.txt', text);
    expect(uploaded.status, uploaded.text).toBe(202);
  });
});

describe('the default JSON body limit', () => {
  it('is 10 MiB: a body just over it is refused with a 413 naming 10485760 bytes', async () => {
    const server = await startTestServer('sqlite');
    try {
      const token = await loginAsAdmin(server);
      const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Default bound' } })).body.id;
      expectLimitNamed(
        await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, { token, rawBody: jsonBodyOf(10_485_761) }),
        10_485_760,
      );
    } finally {
      await server.close();
    }
  });
});
