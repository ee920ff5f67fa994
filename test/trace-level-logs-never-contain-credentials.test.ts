/**
 * Proves that even at LOG_LEVEL=trace, where libraries log their own options (as
 * @fastify/multipart does with the request's headers), no credential reaches a log line: the
 * logger redacts credential-named keys at any depth rather than at paths someone foresaw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactSecrets } from '../src/http/logger.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('trace-level logs on %s', (dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { LOG_LEVEL: 'trace' } });
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('log a multipart upload, its options and headers included, without the bearer token or cookie', async () => {
    const form = new FormData();
    form.append('file', new Blob(['notes for the trace test']), 'notes.txt');
    const cookie = 'merino_session=cookie-secret-for-trace-test';
    const response = await fetch(`${server.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, cookie },
      body: form,
    });
    expect(response.status).toBe(201);
    // The library did log its options: the check below is about a line that exists.
    expect(server.logLines.some((line) => line.includes('busboyOptions'))).toBe(true);
    expect(server.logLines.filter((line) => line.includes(token))).toEqual([]);
    expect(server.logLines.filter((line) => line.includes('cookie-secret-for-trace-test'))).toEqual([]);
  });
});

describe('redaction by key name', () => {
  it('censors credential keys at any depth and in any spelling, and keeps everything else', () => {
    const logged = redactSecrets({
      busboyOptions: { headers: { Authorization: 'Bearer mrs_x', 'X-Api-Key': 'mrk_y', host: 'merino' } },
      providers: [{ api_key: 'sk-1', base_url: 'https://example.org' }],
      user: { password: 'p', email: 'a@b.c' },
    });
    expect(logged).toEqual({
      busboyOptions: { headers: { Authorization: '[redacted]', 'X-Api-Key': '[redacted]', host: 'merino' } },
      providers: [{ api_key: '[redacted]', base_url: 'https://example.org' }],
      user: { password: '[redacted]', email: 'a@b.c' },
    });
  });

  it('replaces values nested past the depth it inspects', () => {
    let nested: Record<string, unknown> = { token: 'deep-secret' };
    for (let level = 0; level < 12; level += 1) nested = { inner: nested };
    expect(JSON.stringify(redactSecrets(nested))).not.toContain('deep-secret');
  });
});
