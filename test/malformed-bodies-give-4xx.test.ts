// Proves that every endpoint the server's own /openapi.json lists answers malformed bodies, query strings and path ids with a 4xx OpenAI-style error (never a 5xx, never a stack trace), on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { FOUNDATION_BODY_ENDPOINTS, FOUNDATION_ENDPOINTS } from './support/foundation-endpoints.js';
import { possiblyUnset } from './support/possibly-unset.js';

/** List endpoints known today to take paging query parameters. */
/**
 * How long the suites that send every malformed body to every endpoint may take: thousands of
 * requests, more with every endpoint; a CI rehearsal with three files at a time and other work on
 * the machine took just over 120 s for one dialect on 2026-12-03, and over 300 s at a load
 * average of 10 later that day.
 */
const MANY_REQUESTS_TIMEOUT_MILLISECONDS = 600_000;
const ENDPOINTS_AT_ONCE = 4;
const KNOWN_QUERY_ENDPOINTS = ['GET /api/users', 'GET /api/assistants'] as const;

const BAD_PATH_IDS = ['abc', '-1', '0', '99999999999', '1.5', '2147483648', 'null', '%00'] as const;
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type JsonSchema = Record<string, any>;

interface Operation {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  parameters?: Array<{ in: string; name: string; schema?: JsonSchema }>;
}

interface Endpoint {
  method: string;
  path: string;
  label: string;
  bodySchema: JsonSchema | undefined;
  queryParameters: string[];
}

/** One request of a corpus: raw body text, sent as application/json unless another content type is named. */
interface MalformedBody {
  description: string;
  rawBody: string;
  contentType?: string;
}

// ---------------------------------------------------------------------------------------------
// Reading the OpenAPI document and deriving bodies from its schemas
// ---------------------------------------------------------------------------------------------

function endpointsOf(document: { paths: Record<string, Record<string, Operation>> }): Endpoint[] {
  const endpoints: Endpoint[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = operations[method];
      if (operation === undefined) continue;
      endpoints.push({
        method: method.toUpperCase(),
        path,
        label: `${method.toUpperCase()} ${path}`,
        bodySchema: operation.requestBody?.content?.['application/json']?.schema,
        queryParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
      });
    }
  }
  return endpoints;
}

/** The JSON types a schema admits, or undefined when it admits anything. */
function allowedTypes(schema: JsonSchema): Set<string> | undefined {
  const types = new Set<string>();
  const alternatives: JsonSchema[] = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (schema.type !== undefined) for (const type of [schema.type].flat()) types.add(type);
  if (schema.nullable === true) types.add('null');
  for (const alternative of alternatives) {
    const inner = allowedTypes(alternative);
    if (inner === undefined) return undefined;
    for (const type of inner) types.add(type);
  }
  return types.size === 0 ? undefined : types;
}

const WRONG_TYPE_CANDIDATES: ReadonlyArray<{ type: string; value: unknown }> = [
  { type: 'integer', value: 12345 },
  { type: 'string', value: 'a string of the wrong type' },
  { type: 'boolean', value: true },
  { type: 'array', value: [1, 2] },
  { type: 'object', value: { nested: 'object' } },
  { type: 'null', value: null },
];

function wrongTypeValue(schema: JsonSchema): { found: true; value: unknown } | { found: false } {
  const types = allowedTypes(schema);
  if (types === undefined) return { found: false };
  const admits = (type: string) => types.has(type) || (type === 'integer' && types.has('number'));
  const candidate = WRONG_TYPE_CANDIDATES.find((entry) => !admits(entry.type));
  return candidate === undefined ? { found: false } : { found: true, value: candidate.value };
}

/** A value the schema accepts; `text` shapes every free-text string (so NUL bytes can be slipped in). */
function sampleValue(name: string, schema: JsonSchema, text: (base: string) => string): unknown {
  if (Array.isArray(schema.enum)) return schema.enum.find((value: unknown) => value !== null) ?? null;
  const alternatives: JsonSchema[] = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (schema.type === undefined && alternatives.length > 0) return sampleValue(name, alternatives[0]!, text);
  const type = [schema.type].flat()[0];
  switch (type) {
    case 'string':
      if (typeof schema.pattern === 'string' && schema.pattern.includes('@')) return text('sample') + '@merino.test';
      if (name.includes('password')) return text('sample-password-') + 'long-enough';
      return text('sample ') + name;
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return schema.items === undefined ? [] : [sampleValue(name, schema.items, text)];
    case 'object':
      return {};
    default:
      return text('sample ') + name;
  }
}

/** A body the endpoint's schema accepts: the required fields, plus every string field when `everyString` is set. */
function validBody(schema: JsonSchema, text: (base: string) => string = (base) => base, everyString = false): Record<string, unknown> {
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const body: Record<string, unknown> = {};
  for (const [name, propertySchema] of Object.entries(properties)) {
    const types = allowedTypes(propertySchema);
    const isFreeText = types?.has('string') === true && !Array.isArray(propertySchema.enum);
    const isTextArray = types?.has('array') === true && allowedTypes(propertySchema.items ?? {})?.has('string') === true;
    if (required.has(name) || (everyString && (isFreeText || isTextArray))) body[name] = sampleValue(name, propertySchema, text);
  }
  // A schema without declared fields (the import document) still gets a string to carry the text.
  if (Object.keys(properties).length === 0) body.name = text('sample ') + 'name';
  return body;
}

function wrongTypesBody(schema: JsonSchema): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, propertySchema] of Object.entries<JsonSchema>(schema.properties ?? {})) {
    const wrong = wrongTypeValue(propertySchema);
    if (wrong.found) body[name] = wrong.value;
  }
  return body;
}

function json(description: string, value: unknown): MalformedBody {
  return { description, rawBody: JSON.stringify(value) };
}

const DEPTH = 10_000;
const TWO_MEBIBYTES = 2 * 1024 * 1024;

/** Every malformed body for one endpoint, derived from its schema. */
function malformedBodies(schema: JsonSchema): MalformedBody[] {
  const valid = validBody(schema);
  const withRawNul = JSON.stringify(validBody(schema, (base) => `${base}\u0000`, true));
  return [
    { description: 'invalid JSON "{"', rawBody: '{' },
    { description: 'invalid JSON {"a":}', rawBody: '{"a":}' },
    { description: 'invalid JSON with a trailing comma', rawBody: '{"name":"x",}' },
    { description: 'a JSON array', rawBody: '[]' },
    { description: 'a JSON array holding a valid body', rawBody: JSON.stringify([valid]) },
    { description: 'a JSON string', rawBody: '"just a string"' },
    { description: 'JSON null', rawBody: 'null' },
    { description: 'a JSON number', rawBody: '42' },
    { description: 'JSON true', rawBody: 'true' },
    { description: 'an empty body with content-type application/json', rawBody: '' },
    { description: 'a body of only whitespace', rawBody: '   \n ' },
    { description: 'an empty JSON object', rawBody: '{}' },
    { description: 'a valid body sent as text/plain', rawBody: JSON.stringify(valid), contentType: 'text/plain' },
    {
      description: 'a form-encoded body',
      rawBody: 'name=x&email=a%40b.c&password=secret-password',
      contentType: 'application/x-www-form-urlencoded',
    },
    { description: 'a valid body with content-type application/xml', rawBody: JSON.stringify(valid), contentType: 'application/xml' },
    json('every declared field of the wrong type', wrongTypesBody(schema)),
    // Only a closed schema refuses unknown fields; an import document is open by design (LAMB rows carry many).
    ...(schema.additionalProperties === false
      ? [json('a valid body plus an unknown extra field', { ...valid, unexpected_extra_field: 'surprise' })]
      : []),
    {
      description: 'a valid body plus a __proto__ key',
      rawBody: `{"__proto__": {"polluted": true}${JSON.stringify(valid).slice(1, -1) === '' ? '' : ','}${JSON.stringify(valid).slice(1, -1)}}`,
    },
    {
      description: 'a valid body plus a constructor.prototype key',
      rawBody: `{"constructor": {"prototype": {"polluted": true}}${JSON.stringify(valid).slice(1, -1) === '' ? '' : ','}${JSON.stringify(valid).slice(1, -1)}}`,
    },
    { description: `arrays nested ${DEPTH} deep`, rawBody: '['.repeat(DEPTH) + ']'.repeat(DEPTH) },
    { description: `objects nested ${DEPTH} deep`, rawBody: '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH) },
    { description: `objects nested ${DEPTH} deep under "name"`, rawBody: '{"name":' + '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH + 1) },
    { description: 'a 2 MB body (over the 1 MiB limit)', rawBody: JSON.stringify({ ...valid, name: 'x'.repeat(TWO_MEBIBYTES) }) },
    // JSON forbids unescaped control characters in strings; only bodies with a string field can carry one.
    ...(withRawNul.includes('\\u0000')
      ? [{ description: 'a raw NUL byte inside a JSON string', rawBody: withRawNul.replace(/\\u0000/g, '\u0000') }]
      : []),
  ];
}

/** Bodies that are well-formed JSON of the right shape but whose text holds characters no stored text may hold. */
function badTextBodies(schema: JsonSchema): MalformedBody[] {
  const bodies = [
    json(
      'strings holding an escaped NUL byte (\\u0000)',
      validBody(schema, (base) => `${base}\u0000nul`, true),
    ),
    json(
      'strings holding a lone high surrogate (\\ud800)',
      validBody(schema, (base) => `${base}\ud800`, true),
    ),
    json(
      'strings holding a lone low surrogate (\\udc00)',
      validBody(schema, (base) => `\udc00${base}`, true),
    ),
  ];
  // An endpoint without any string field (publish) cannot carry bad text at all.
  return bodies.filter((body) => /\\u0000|\\ud800|\\udc00/.test(body.rawBody));
}

/**
 * Each corpus built once per schema for the whole file, not once per path and dialect: the bodies
 * depend only on the endpoint's schema, and the 2 MB and 10,000-deep ones take tens of
 * milliseconds each to build.
 */
const builtBodies = new Map<string, MalformedBody[]>();

function bodiesOnce(bodiesFor: (schema: JsonSchema) => MalformedBody[], endpoint: Endpoint): MalformedBody[] {
  const key = `${bodiesFor.name} ${JSON.stringify(endpoint.bodySchema)}`;
  let bodies = builtBodies.get(key);
  if (bodies === undefined) {
    bodies = bodiesFor(endpoint.bodySchema!);
    builtBodies.set(key, bodies);
  }
  return bodies;
}

// ---------------------------------------------------------------------------------------------
// Judging responses
// ---------------------------------------------------------------------------------------------

const STACK_TRACE_PATTERNS: readonly RegExp[] = [
  /\bat (?:\S+ \()?(?:file:\/\/|node:|\/|[A-Za-z]:\\)/,
  /node_modules/,
  /\.ts:\d*/,
  /\.js:\d+:\d+/,
];

/** Why a response is not an acceptable answer to a malformed request, or undefined when it is. */
function problemWith(response: JsonResponse, allowUnauthorized: boolean): string | undefined {
  if (response.status < 400 || response.status > 499) return `status ${response.status}`;
  if (response.status === 401 && !allowUnauthorized) return 'status 401 although the request was authenticated';
  const body = response.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object';
  if (Object.keys(body).join(',') !== 'error') return `top-level keys ${Object.keys(body).join(',')}`;
  const error = body.error;
  if (typeof error !== 'object' || error === null) return 'error is not an object';
  if (typeof error.code !== 'string' || error.code === '') return 'error.code is not a string';
  if (typeof error.message !== 'string' || error.message === '') return 'error.message is not a string';
  if (typeof error.type !== 'string' || error.type === '') return 'error.type is not a string';
  if (!(error.param === null || typeof error.param === 'string')) return 'error.param is neither a string nor null';
  const trace = STACK_TRACE_PATTERNS.find((pattern) => pattern.test(response.text));
  if (trace !== undefined) return `the text matches ${trace}`;
  if (!(response.headers.get('content-type') ?? '').includes('application/json'))
    return `content-type ${response.headers.get('content-type')}`;
  return undefined;
}

function describeFailure(method: string, path: string, what: string, response: JsonResponse, problem: string): string {
  return `${method} ${path} with ${what} → ${response.status} (${problem}): ${response.text.slice(0, 300)}`;
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

describe.each(TEST_DIALECTS)('malformed requests get 4xx on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let endpoints: Endpoint[];
  const realIds = { user: 0, apiKey: 0, assistant: 0 };

  /** The id of a real object the admin owns, for each collection with ids. */
  function realIdFor(path: string): string {
    if (path.startsWith('/api/users/')) return String(realIds.user);
    if (path.startsWith('/api/api-keys/')) return String(realIds.apiKey);
    if (path.startsWith('/api/assistants/')) return String(realIds.assistant);
    // An endpoint added after this test was written: user 1 is the administrator, always present.
    return '1';
  }

  /** The concrete paths to try for an endpoint: the real id and every bad one. */
  function concretePaths(endpoint: Endpoint): string[] {
    if (!endpoint.path.includes('{')) return [endpoint.path];
    return [realIdFor(endpoint.path), ...BAD_PATH_IDS].map((id) => endpoint.path.replace(/\{[^}]+\}/g, id));
  }

  function bodyEndpoints(): Endpoint[] {
    return endpoints.filter((endpoint) => endpoint.bodySchema !== undefined);
  }

  async function send(method: string, path: string, body: MalformedBody): Promise<JsonResponse> {
    return request(server, method, path, {
      token: adminToken,
      rawBody: body.rawBody,
      headers: { 'content-type': body.contentType ?? 'application/json' },
    });
  }

  /** Sends every body to every concrete path of every body endpoint; returns the failures. */
  /** Each endpoint's bodies go one after another; a few endpoints at a time keep the thousands of requests cheap. */
  async function sendToEveryBodyEndpoint(
    bodiesFor: (schema: JsonSchema) => MalformedBody[],
  ): Promise<{ failures: string[]; sent: number }> {
    const failures: string[] = [];
    let sent = 0;
    const waiting = [...bodyEndpoints()];
    const lane = async (): Promise<void> => {
      for (let endpoint = waiting.shift(); endpoint !== undefined; endpoint = waiting.shift()) {
        const bodies = bodiesOnce(bodiesFor, endpoint);
        for (const path of concretePaths(endpoint)) {
          for (const body of bodies) {
            const response = await send(endpoint.method, path, body);
            sent += 1;
            const problem = problemWith(response, endpoint.label === 'POST /api/auth/login');
            if (problem !== undefined) failures.push(describeFailure(endpoint.method, path, body.description, response, problem));
          }
        }
      }
    };
    await Promise.all(Array.from({ length: ENDPOINTS_AT_ONCE }, lane));
    return { failures: failures.sort(), sent };
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    realIds.user = (await createUser(server, adminToken, { email: 'target@merino.test', role: 'learner' })).id;
    const key = await request(server, 'POST', '/api/api-keys', { token: adminToken, body: { name: 'target key' } });
    realIds.apiKey = key.body.id;
    const assistant = await request(server, 'POST', '/api/assistants', { token: adminToken, body: { name: 'Target assistant' } });
    realIds.assistant = assistant.body.id;
    expect([key.status, assistant.status]).toEqual([201, 201]);
    const document = await request(server, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    endpoints = endpointsOf(document.body);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('the endpoint enumeration', () => {
    it('finds every endpoint known today in /openapi.json, so the test cannot go vacuous', () => {
      const labels = endpoints.map((endpoint) => endpoint.label);
      expect(labels).toEqual(expect.arrayContaining([...FOUNDATION_ENDPOINTS]));
      expect(labels.length).toBeGreaterThanOrEqual(FOUNDATION_ENDPOINTS.length);
    });

    it('finds a JSON body schema for every endpoint known to take a body', () => {
      const labels = bodyEndpoints().map((endpoint) => endpoint.label);
      expect(labels).toEqual(expect.arrayContaining([...FOUNDATION_BODY_ENDPOINTS]));
    });

    it('finds the query parameters of every list endpoint', () => {
      const listEndpoints = endpoints.filter((endpoint) => endpoint.queryParameters.length > 0).map((endpoint) => endpoint.label);
      expect(listEndpoints).toEqual(expect.arrayContaining([...KNOWN_QUERY_ENDPOINTS]));
    });

    it('the admin token and the real ids work, so refusals below are about the malformed input', async () => {
      expect((await request(server, 'GET', '/api/me', { token: adminToken })).status).toBe(200);
      expect((await request(server, 'GET', `/api/users/${realIds.user}`, { token: adminToken })).status).toBe(200);
      expect((await request(server, 'GET', `/api/assistants/${realIds.assistant}`, { token: adminToken })).status).toBe(200);
      const keys = await request(server, 'GET', '/api/api-keys', { token: adminToken });
      expect((keys.body.items as Array<{ id: number }>).map((item) => item.id)).toContain(realIds.apiKey);
    });

    it('a valid body derived from each schema is accepted on the endpoints that only create, so the derived bodies are right', async () => {
      for (const label of [
        'POST /api/assistants',
        'POST /api/api-keys',
        'PUT /api/assistants/{id}/shares',
        'PUT /api/assistants/{id}/publish',
      ]) {
        const endpoint = endpoints.find((candidate) => candidate.label === label)!;
        const path = endpoint.path.replace('{id}', String(realIds.assistant));
        const response = await request(server, endpoint.method, path, { token: adminToken, body: validBody(endpoint.bodySchema!) });
        if (label.endsWith('/shares')) {
          // The sample email belongs to nobody, which must be a 4xx of its own.
          expect(response.status, `${label}: ${response.text}`).toBe(400);
          expect(response.body.error.code).toBe('unknown_users');
        } else {
          expect(response.status, `${label}: ${response.text}`).toBeLessThan(300);
        }
      }
    });
  });

  describe('malformed bodies', () => {
    it(
      'get a 4xx OpenAI-style error without a stack trace on every endpoint that takes a body',
      async () => {
        const { failures, sent } = await sendToEveryBodyEndpoint(malformedBodies);
        expect(sent).toBeGreaterThan(FOUNDATION_BODY_ENDPOINTS.length * 20);
        expect(failures).toEqual([]);
        // Refused means refused: the real objects the bodies were aimed at are unchanged.
        const assistant = await request(server, 'GET', `/api/assistants/${realIds.assistant}`, { token: adminToken });
        expect(assistant.body).toMatchObject({ name: 'Target assistant', description: '' });
        const user = await request(server, 'GET', `/api/users/${realIds.user}`, { token: adminToken });
        expect(user.body).toMatchObject({ email: 'target@merino.test', name: '', role: 'learner', disabled: false });
        // Thousands of requests, one after another, and more with every endpoint added: the default timeout is for one scenario.
      },
      MANY_REQUESTS_TIMEOUT_MILLISECONDS,
    );

    it(
      'holding NUL bytes or lone surrogates in their strings get a 4xx OpenAI-style error on every endpoint that takes a body',
      async () => {
        const { failures, sent } = await sendToEveryBodyEndpoint(badTextBodies);
        expect(sent).toBeGreaterThan(FOUNDATION_BODY_ENDPOINTS.length * 3);
        expect(failures).toEqual([]);
      },
      MANY_REQUESTS_TIMEOUT_MILLISECONDS,
    );

    it('over the body limit get 413 body_too_large', async () => {
      const response = await send('POST', '/api/assistants', {
        description: '2 MB',
        rawBody: JSON.stringify({ name: 'x'.repeat(TWO_MEBIBYTES) }),
      });
      expect(response.status, response.text).toBe(413);
      expect(response.body.error.code).toBe('body_too_large');
    });

    it('of a content type the server does not read get 415 unsupported_media_type', async () => {
      for (const contentType of ['application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
        const response = await send('POST', '/api/api-keys', { description: contentType, rawBody: 'name=k', contentType });
        expect(response.status, `${contentType}: ${response.text}`).toBe(415);
        expect(response.body.error.code).toBe('unsupported_media_type');
      }
    });

    it('sent as text/plain are not taken for JSON objects: 400 or 415, and no key is created', async () => {
      const before = await request(server, 'GET', '/api/api-keys', { token: adminToken });
      const response = await send('POST', '/api/api-keys', { description: 'text', rawBody: '{"name":"k"}', contentType: 'text/plain' });
      expect([400, 415], response.text).toContain(response.status);
      const after = await request(server, 'GET', '/api/api-keys', { token: adminToken });
      expect(after.body.items.length).toBe(before.body.items.length);
    });

    it('with an unknown field get 400 naming that field', async () => {
      const response = await send('POST', '/api/api-keys', { description: 'extra', rawBody: '{"name":"k","colour":"blue"}' });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_body', param: 'colour' });
    });
  });

  describe('malformed query strings', () => {
    const badQueries = [
      'limit=-1',
      'limit=abc',
      'limit=100000',
      'limit=0',
      'limit=1.5',
      'limit=1&limit=2',
      'offset=-5',
      'offset=abc',
      'offset=99999999999999',
      'type=other',
      'unknown_parameter=1',
      `q=${'q'.repeat(201)}`,
    ];

    it('get a 4xx OpenAI-style error on every list endpoint', async () => {
      // A list is a collection path; a GET under an {id} with a query (an export's ?format=) is not one.
      const listEndpoints = endpoints.filter(
        (endpoint) => endpoint.method === 'GET' && endpoint.queryParameters.length > 0 && !endpoint.path.includes('{'),
      );
      expect(listEndpoints.length).toBeGreaterThanOrEqual(KNOWN_QUERY_ENDPOINTS.length);
      const failures: string[] = [];
      for (const endpoint of listEndpoints) {
        // A report that is not paged (GET /api/usage) declares no `limit`, and rightly refuses one.
        const valid = endpoint.queryParameters.includes('limit')
          ? await request(server, 'GET', `${endpoint.path}?limit=1&offset=0`, { token: adminToken })
          : undefined;
        if (valid !== undefined && valid.status !== 200)
          failures.push(`GET ${endpoint.path}?limit=1&offset=0 → ${valid.status}, expected 200: ${valid.text.slice(0, 200)}`);
        for (const query of badQueries) {
          // type=other is a bad value where `type` is declared and an unknown parameter elsewhere: 4xx either way.
          const response = await request(server, 'GET', `${endpoint.path}?${query}`, { token: adminToken });
          const problem = problemWith(response, false);
          if (problem !== undefined) failures.push(describeFailure('GET', endpoint.path, `?${query.slice(0, 40)}`, response, problem));
        }
      }
      expect(failures).toEqual([]);
    });

    it('a search for text holding a NUL byte never gets a 5xx on any list endpoint (an empty page or a 4xx error)', async () => {
      const listEndpoints = endpoints.filter((endpoint) => endpoint.method === 'GET' && endpoint.queryParameters.includes('q'));
      expect(listEndpoints.length).toBeGreaterThanOrEqual(KNOWN_QUERY_ENDPOINTS.length);
      const failures: string[] = [];
      for (const endpoint of listEndpoints) {
        const response = await request(server, 'GET', `${endpoint.path}?q=nul%00byte`, { token: adminToken });
        const problem = response.status === 200 ? undefined : problemWith(response, false);
        if (problem !== undefined) failures.push(describeFailure('GET', endpoint.path, '?q=nul%00byte', response, problem));
      }
      expect(failures).toEqual([]);
    });

    it('name the offending parameter with invalid_query', async () => {
      const response = await request(server, 'GET', '/api/users?limit=abc', { token: adminToken });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_query', param: 'limit' });
    });
  });

  describe('bad path ids', () => {
    it('get 400 or 404 (never 5xx) on every GET and DELETE endpoint with an id', async () => {
      const idEndpoints = endpoints.filter(
        (endpoint) => endpoint.path.includes('{') && (endpoint.method === 'GET' || endpoint.method === 'DELETE'),
      );
      expect(idEndpoints.length).toBeGreaterThanOrEqual(6);
      const failures: string[] = [];
      for (const endpoint of idEndpoints) {
        for (const id of [...BAD_PATH_IDS, '2147483647']) {
          const path = endpoint.path.replace(/\{[^}]+\}/g, id);
          const response = await request(server, endpoint.method, path, { token: adminToken });
          const problem = response.status === 400 || response.status === 404 ? problemWith(response, false) : `status ${response.status}`;
          if (problem !== undefined) failures.push(describeFailure(endpoint.method, path, `id ${id}`, response, problem));
        }
      }
      expect(failures).toEqual([]);
    });

    it('a non-numeric id gets 400 invalid_parameter naming id', async () => {
      const response = await request(server, 'GET', '/api/assistants/abc', { token: adminToken });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param: 'id' });
    });
  });
});
