/**
 * Proves, on both stores, that requests refused before any route runs (found by the API fuzz
 * suite) get the same error JSON with a code as every other refusal, and never echo the URL: a
 * path with broken percent-encoding, an over-long path parameter, a body shorter than its
 * Content-Length, and a header block over Node's limit.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

/** Node's default limit on the request header block is 16 KiB. */
const OVERSIZED_HEADER_BYTES = 20_000;

interface RawAnswer {
  status: number;
  contentType: string;
  body: any;
}

/** Sends bytes over a raw socket, half-closes it, and reads the answer. */
function sendRaw(server: TestServer, bytes: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.end(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const separator = text.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status === null || separator === -1) {
        reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      resolve({
        status: Number(status[1]),
        contentType: /\r\ncontent-type: ([^\r\n]*)/i.exec(text)?.[1] ?? '',
        body: JSON.parse(text.slice(separator + 4)),
      });
    });
  });
}

describe.each(TEST_DIALECTS)('requests refused before any route runs on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it.each([
    ['a malformed percent-encoding', '/api/users/%zz-secret-marker'],
    ['an overlong UTF-8 encoding', '/api/knowledge-bases/%C0%AFsecret-marker/jobs'],
    ['a path parameter over the router limit', `/api/assistants/secret-marker${'9'.repeat(300)}`],
  ])('%s gets 400 invalid_parameter as error JSON that does not echo the URL', async (_what, path) => {
    const response = await request(server, 'GET', path, { token: adminToken });
    expect(response.status, response.text).toBe(400);
    expect(response.headers.get('content-type') ?? '').toContain('application/json');
    expect(response.body).toEqual({
      error: { code: 'invalid_parameter', message: expect.any(String), type: 'invalid_request_error', param: null },
    });
    expect(response.text).not.toContain('secret-marker');
  });

  it('a body shorter than its Content-Length gets 400 invalid_body as error JSON', async () => {
    const answer = await sendRaw(
      server,
      'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    );
    expect(answer.status).toBe(400);
    expect(answer.contentType).toContain('application/json');
    expect(answer.body.error).toMatchObject({ code: 'invalid_body', type: 'invalid_request_error' });
  });

  it('a header block over the limit gets 431 headers_too_large as error JSON', async () => {
    const answer = await sendRaw(
      server,
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'p'.repeat(OVERSIZED_HEADER_BYTES)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(answer.contentType).toContain('application/json');
    expect(answer.body.error).toMatchObject({ code: 'headers_too_large', type: 'invalid_request_error' });
  });

  it('the server keeps answering afterwards', async () => {
    expect((await request(server, 'GET', '/healthz')).status).toBe(200);
  });
});
