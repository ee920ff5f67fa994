/**
 * Request validators and response serializers are compiled on their first use, not when the app
 * starts (src/http/validation.ts says why), so a schema Ajv or fast-json-stringify cannot compile
 * would otherwise show only when its route is first called. This compiles every one the app's
 * routes ask for, and checks that a compiled-on-first-use validator still reports its problems.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEverySerializer } from '../src/http/response-serializer.js';
import { compileEveryValidator } from '../src/http/validation.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

describe('every route schema', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });

  afterAll(async () => {
    await server.close();
  });

  it('compiles, for requests and for responses', () => {
    // 89 distinct request schemas and 126 response ones today; far fewer would mean the app's
    // routes never reached the compilers.
    expect(compileEveryValidator()).toBeGreaterThan(50);
    expect(buildEverySerializer()).toBeGreaterThan(50);
  });

  it('still names the problem of a bad body on a route whose validator had not run yet', async () => {
    const token = await loginAsAdmin(server);
    const answer = await request(server, 'POST', '/api/assistants', { token, body: { name: 7 } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_body');
    expect(answer.body.error.message).toMatch(/name/);
  });
});
