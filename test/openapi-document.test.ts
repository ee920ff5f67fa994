// Proves the public surface on both stores: /openapi.json is a valid OpenAPI 3 document listing every foundation endpoint, /docs serves HTML, /healthz and /status answer without auth, and unknown API routes get 404 error JSON (other paths are the web app's pages: test/web-sign-in-keeps-the-session-in-an-httponly-cookie.test.ts).
import AjvModule from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestServer, type TestServer } from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { FOUNDATION_BODY_ENDPOINTS, FOUNDATION_ENDPOINTS } from './support/foundation-endpoints.js';

// ajv is CommonJS; under NodeNext its default export sits one level down.
const Ajv = AjvModule.default;

const OPERATION_KEYS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

type JsonObject = Record<string, any>;

function operationsOf(document: JsonObject): Array<{ label: string; path: string; method: string; operation: JsonObject }> {
  return Object.entries<JsonObject>(document.paths).flatMap(([path, item]) =>
    Object.entries<JsonObject>(item)
      .filter(([key]) => OPERATION_KEYS.has(key))
      .map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, path, method, operation })),
  );
}

/** Every schema object in the document: request bodies, parameters and responses. */
function schemasOf(document: JsonObject): Array<{ where: string; schema: JsonObject }> {
  const schemas: Array<{ where: string; schema: JsonObject }> = [];
  for (const { label, operation } of operationsOf(document)) {
    for (const [type, media] of Object.entries<JsonObject>(operation.requestBody?.content ?? {})) {
      if (media.schema) schemas.push({ where: `${label} request body (${type})`, schema: media.schema });
    }
    for (const parameter of operation.parameters ?? []) {
      if (parameter.schema) schemas.push({ where: `${label} parameter ${parameter.name}`, schema: parameter.schema });
    }
    for (const [status, response] of Object.entries<JsonObject>(operation.responses ?? {})) {
      for (const [type, media] of Object.entries<JsonObject>(response.content ?? {})) {
        if (media.schema) schemas.push({ where: `${label} response ${status} (${type})`, schema: media.schema });
      }
    }
  }
  return schemas;
}

describe.each(TEST_DIALECTS)('the public surface on %s', (dialect) => {
  let server: TestServer;
  let document: JsonObject;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const response = await request(server, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
  });

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await server?.close();
  });

  describe('/openapi.json', () => {
    it('is served without authentication as JSON', async () => {
      const response = await request(server, 'GET', '/openapi.json');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type') ?? '').toContain('application/json');
      expect(() => JSON.parse(response.text)).not.toThrow();
    });

    it('is an OpenAPI 3 document with info, paths and a bearer security scheme', () => {
      expect(document.openapi).toMatch(/^3\.\d+\.\d+$/);
      expect(document.info.title).toBeTypeOf('string');
      expect(document.info.title.length).toBeGreaterThan(0);
      expect(document.info.version).toBeTypeOf('string');
      expect(document.paths).toBeTypeOf('object');
      expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(document.security).toEqual([{ bearer: [] }]);
    });

    it('lists every endpoint of the foundation', () => {
      const labels = operationsOf(document).map((entry) => entry.label);
      const missing = FOUNDATION_ENDPOINTS.filter((endpoint) => !labels.includes(endpoint));
      expect(missing).toEqual([]);
    });

    it('lists only endpoints the server really serves (none answers "no such endpoint")', async () => {
      const phantom: string[] = [];
      for (const { label, path, method } of operationsOf(document)) {
        // Without credentials a real endpoint answers 2xx or 401; only a missing route answers route_not_found.
        const response = await request(server, method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1'));
        if (response.body?.error?.code === 'route_not_found') phantom.push(label);
      }
      expect(phantom).toEqual([]);
    });

    it('does not document itself or the docs UI as API endpoints', () => {
      const paths = Object.keys(document.paths);
      expect(paths).not.toContain('/openapi.json');
      expect(paths.filter((path) => path.startsWith('/docs'))).toEqual([]);
    });

    it('gives every operation a summary and at least one response, and uses only OpenAPI path templates', () => {
      const problems: string[] = [];
      for (const { label, path, operation } of operationsOf(document)) {
        if (!path.startsWith('/')) problems.push(`${label}: path does not start with /`);
        if (path.includes(':')) problems.push(`${label}: Fastify-style :parameter instead of {parameter}`);
        if (typeof operation.summary !== 'string' || operation.summary === '') problems.push(`${label}: no summary`);
        if (typeof operation.responses !== 'object' || Object.keys(operation.responses).length === 0)
          problems.push(`${label}: no responses`);
        for (const [status, response] of Object.entries<JsonObject>(operation.responses ?? {})) {
          if (!/^(?:[1-5]\d\d|[1-5]XX|default)$/.test(status)) problems.push(`${label}: response key ${status}`);
          if (typeof response.description !== 'string') problems.push(`${label}: response ${status} has no description`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('documents a success answer for every operation: a described 2xx, with a schema for each content type it answers in', () => {
      // A route without a 2xx schema shows no answer in /docs and skips fast serialization; this makes a new one fail here.
      const problems: string[] = [];
      for (const { label, operation } of operationsOf(document)) {
        const successes = Object.entries<JsonObject>(operation.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
        if (successes.length === 0) problems.push(`${label}: no 2xx response`);
        for (const [status, response] of successes) {
          // @fastify/swagger writes "Default Response" when the route's schema gives no description of its own.
          if (typeof response.description !== 'string' || response.description === '' || response.description === 'Default Response')
            problems.push(`${label}: response ${status} has no description of its own`);
          if (status === '204') {
            if (response.content !== undefined) problems.push(`${label}: 204 declares a body`);
            continue;
          }
          const contents = Object.entries<JsonObject>(response.content ?? {});
          if (contents.length === 0) problems.push(`${label}: response ${status} declares no content type`);
          for (const [type, media] of contents) {
            if (typeof media.schema !== 'object' || media.schema === null)
              problems.push(`${label}: response ${status} (${type}) has no schema`);
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('declares every {path parameter} as a required path parameter', () => {
      const problems: string[] = [];
      for (const { label, path, operation } of operationsOf(document)) {
        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
        const declared = (operation.parameters ?? []).filter((parameter: JsonObject) => parameter.in === 'path');
        for (const name of templated) {
          const parameter = declared.find((candidate: JsonObject) => candidate.name === name);
          if (parameter === undefined) problems.push(`${label}: {${name}} is not declared`);
          else if (parameter.required !== true) problems.push(`${label}: {${name}} is not required`);
        }
        for (const parameter of declared) {
          if (!templated.includes(parameter.name)) problems.push(`${label}: declares path parameter ${parameter.name} the path lacks`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('holds only schemas that compile as JSON Schema', () => {
      const ajv = new Ajv({ strict: false, allErrors: true });
      const schemas = schemasOf(document);
      expect(schemas.length).toBeGreaterThan(FOUNDATION_ENDPOINTS.length);
      const problems: string[] = [];
      for (const { where, schema } of schemas) {
        try {
          ajv.compile(schema);
        } catch (error) {
          problems.push(`${where}: ${(error as Error).message}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('documents a JSON request body for every endpoint that reads one', () => {
      const operations = new Map(operationsOf(document).map((entry) => [entry.label, entry.operation]));
      const missing = FOUNDATION_BODY_ENDPOINTS.filter(
        (label) => operations.get(label)?.requestBody?.content?.['application/json']?.schema === undefined,
      );
      expect(missing).toEqual([]);
    });

    it('leaves login, self sign-up, signed source links, /healthz, /readyz and /status open and every other /api endpoint behind the bearer scheme', async () => {
      // The document declares bearer security globally; the server must agree: only the open endpoints answer without a token.
      const open: string[] = [];
      for (const { label, path, method } of operationsOf(document)) {
        const response = await request(server, method.toUpperCase(), path.replace(/\{[^}]+\}/g, '1'));
        if (response.status !== 401) open.push(label);
      }
      expect(open.sort()).toEqual(
        [
          'GET /healthz',
          'GET /readyz',
          'GET /status',
          'POST /api/auth/login',
          'POST /api/auth/sign-up',
          'GET /api/source-links/{token}',
        ].sort(),
      );
    });
  });

  describe('/docs', () => {
    it('serves an HTML page without authentication', async () => {
      const response = await fetch(`${server.baseUrl}/docs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type') ?? '').toContain('text/html');
      const html = await response.text();
      expect(html).toMatch(/<html/i);
      expect(html.toLowerCase()).toContain('swagger');
    });
  });

  describe('health', () => {
    it('/healthz answers {status: "ok", database} naming the store, without authentication', async () => {
      const response = await request(server, 'GET', '/healthz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok', database: dialect });
    });

    it('/readyz answers like /healthz while the process is not draining, without authentication', async () => {
      const response = await request(server, 'GET', '/readyz');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok', database: dialect });
    });

    it('/status answers {status: true} as LAMB does, without authentication', async () => {
      const response = await request(server, 'GET', '/status');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: true });
    });
  });

  describe('an unknown route', () => {
    it.each([
      ['GET', '/api/no-such-route'],
      ['GET', '/v1/no-such-route'],
      ['GET', '/lamb/no-such-route'],
      ['POST', '/api/no-such-route'],
      ['DELETE', '/api/users'],
      ['PUT', '/healthz'],
      ['GET', '/api/users/1/nothing'],
    ])('%s %s gets 404 error JSON', async (method, path) => {
      const response = await request(server, method, path);
      expect(response.status, response.text).toBe(404);
      expect(response.headers.get('content-type') ?? '').toContain('application/json');
      expect(response.body).toEqual({
        error: { code: 'route_not_found', message: `No endpoint ${method} ${path}.`, type: 'not_found_error', param: null },
      });
    });

    it('does not echo the query string in its message', async () => {
      const response = await request(server, 'GET', '/api/no-such-route?token=secret-value');
      expect(response.status).toBe(404);
      expect(response.text).not.toContain('secret-value');
    });
  });
});
