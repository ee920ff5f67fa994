/** Proves that text no store can keep (NUL, unpaired surrogates) and JSON nested past JSON_DEPTH_MAX get a 400 naming where, on both stores. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const DEPTH_LIMIT = 8;

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = { inner: value };
  return value;
}

describe.each(TEST_DIALECTS)('request text on %s', (dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { JSON_DEPTH_MAX: String(DEPTH_LIMIT) } });
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('refuses a NUL character with 400 naming the field, and stores nothing', async () => {
    const response = await request(server, 'POST', '/api/assistants', { token, body: { name: 'tutor', description: 'a\u0000b' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_body', param: 'description' });
    const list = await request(server, 'GET', '/api/assistants', { token });
    expect(list.body.total).toBe(0);
  });

  it('refuses an unpaired surrogate inside metadata, naming its path', async () => {
    const response = await request(server, 'POST', '/api/assistants', {
      token,
      rawBody: '{"name":"tutor","metadata":{"tools":[{"type":"single_file_rag","config":{"file_path":"Bar\\ud800celona.md"}}]}}',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('metadata.tools[0].config.file_path');
  });

  it('keeps a correctly paired surrogate (an emoji) exactly as sent', async () => {
    const response = await request(server, 'POST', '/api/assistants', { token, body: { name: 'Tutor 🦉' } });
    expect(response.status).toBe(201);
    expect((await request(server, 'GET', `/api/assistants/${response.body.id}`, { token })).body.name).toBe('Tutor 🦉');
  });

  it('refuses a NUL character in a query string with 400 invalid_query', async () => {
    const response = await request(server, 'GET', '/api/assistants?q=a%00b', { token });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_query', param: 'q' });
  });

  it(`accepts metadata nested up to JSON_DEPTH_MAX (${DEPTH_LIMIT}) and refuses one level more`, async () => {
    // The body is level 1 and metadata level 2, so `nested(n)` fills levels 3 to n + 2.
    const accepted = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'deep', metadata: { extra: nested(DEPTH_LIMIT - 2) } },
    });
    expect(accepted.status).toBe(201);
    const refused = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'deeper', metadata: { extra: nested(DEPTH_LIMIT - 1) } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain(`nested more than ${DEPTH_LIMIT} levels deep`);
  });
});
