/**
 * Generates the API fuzz suite's requests from the server's own /openapi.json: for every
 * operation, path parameters (real ids, other people's ids, hostile spellings), query strings,
 * JSON bodies (valid, at their bounds, with one field broken, with fields missing or extra) and
 * malformed transport (wrong content types, invalid or truncated JSON, invalid UTF-8, compressed
 * claims, odd multipart), each sent as one of several roles. Everything comes from one seeded
 * generator, so a seed always yields the same requests.
 */
import { deeplyNested, hostileValue, HOSTILE_STRINGS, propertyNames, validObject, validValue, type JsonSchema } from './schema-values.js';
import { multipartBody } from './multipart-bodies.js';
import type { FuzzWorld, RoleName } from './fuzz-world.js';
import type { SeededRandom } from './seeded-random.js';

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface FuzzOperation {
  method: string;
  path: string;
  label: string;
  parameters: Array<{ in: string; name: string; required?: boolean; schema?: JsonSchema }>;
  jsonSchema: JsonSchema | undefined;
  /**
   * The schema friendly bodies are built from: the operation's own, or, for an import whose
   * document is any object, the schema of the create operation it imports into.
   */
  templateSchema: JsonSchema | undefined;
  takesMultipart: boolean;
}

export interface FuzzCase {
  label: string;
  /** What was generated, for failure messages. */
  variant: string;
  role: RoleName | 'disposable-session';
  method: string;
  /** Path and query, already percent-encoded where a client would encode. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Sent over a raw socket that announces more body than it sends, then half-closes. */
  truncatedOnTheWire?: boolean;
}

export function operationsOf(document: { paths: Record<string, Record<string, any>> }): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const content = operation.requestBody?.content ?? {};
      operations.push({
        method: method.toUpperCase(),
        path,
        label: `${method.toUpperCase()} ${path}`,
        parameters: operation.parameters ?? [],
        jsonSchema: content['application/json']?.schema,
        templateSchema: content['application/json']?.schema,
        takesMultipart: content['multipart/form-data'] !== undefined,
      });
    }
  }
  for (const operation of operations) {
    const openDocument = operation.jsonSchema !== undefined && Object.keys(operation.jsonSchema.properties ?? {}).length === 0;
    const create = operations.find((candidate) => candidate.method === 'POST' && `${candidate.path}/import` === operation.path);
    if (openDocument && create?.jsonSchema !== undefined) operation.templateSchema = create.jsonSchema;
  }
  return operations;
}

/** The real ids a path or query parameter may take, by where it sits. */
function realValuesFor(operation: FuzzOperation, name: string, world: FuzzWorld): Array<string | number> {
  const { ids } = world;
  if (name === 'assistant') return ids.assistants;
  // The test case and run live on the spare assistant: their routes name it.
  if (name === 'id' && /\/(tests|test-runs)\b/.test(operation.path)) return ids.spareAssistants;
  // Changes go to assistants kept for that, so chats keep reaching the published one unchanged.
  if (operation.path.startsWith('/api/assistants/{') && operation.method !== 'GET') return ids.spareAssistants;
  // Suspending or deleting the fuzz school would lock its actors out: those go to a spare organization.
  if (operation.path === '/api/organizations/{id}' && operation.method !== 'GET') return ids.spareOrganizations;
  if (name === 'documentId') return ids.documents;
  if (name === 'crawlId') return ids.webCrawls;
  if (name === 'jobId') return ids.jobs;
  if (name === 'messageId') return ids.messages;
  if (name === 'rubricId') return ids.rubrics;
  if (name === 'caseId') return ids.testCases;
  if (name === 'runId' || name === 'base' || name === 'head') return ids.testRuns;
  if (name === 'name') return ids.toolNames;
  const prefixes: ReadonlyArray<readonly [string, Array<string | number>]> = [
    ['/api/users/', ids.users],
    ['/api/templates/', ids.templates],
    ['/api/api-keys/', ids.apiKeys],
    ['/api/assistants/', ids.assistants],
    ['/api/organizations/', ids.organizations],
    ['/api/knowledge-bases/', ids.knowledgeBases],
    ['/api/files/', ids.files],
    ['/api/chats/', ids.chats],
    ['/api/traces/', ids.traces],
    ['/api/lti/consumers/', ids.ltiConsumers],
    ['/api/lti/platforms/', ids.ltiPlatforms],
    ['/api/lti/activities/', ids.ltiActivities],
    ['/api/mcp-servers/', ids.mcpServers],
  ];
  return prefixes.find(([prefix]) => operation.path.startsWith(prefix))?.[1] ?? [];
}

/** Percent-encodes text; a lone surrogate becomes the bytes of an encoded surrogate, which is invalid UTF-8 on purpose. */
function percentEncoded(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text
      .replace(/[\ud800-\udfff]/g, '\ufffd')
      .split('\ufffd')
      .map(encodeURIComponent)
      .join('%ED%A0%80');
  }
}

/** Path segments no id should be: out of range, not numbers, traversal, bad percent-encoding, huge. */
function hostileSegment(random: SeededRandom, real: Array<string | number>): string {
  const anyReal = real.length > 0 ? String(random.pick(real)) : '7';
  return random.pick([
    '0',
    '-1',
    '2147483647',
    '2147483648',
    '99999999999999999999999999',
    '1.5',
    '1e3',
    '0x1F',
    'abc',
    'null',
    'undefined',
    '..',
    '.',
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e',
    '%00',
    'a%00b',
    '%zz',
    '%',
    '%C0%AF',
    '%FF%FE',
    '%F0%9F%A6%99',
    'x'.repeat(3_000),
    '9'.repeat(400),
    '%3Cscript%3E',
    '%20',
    'lamb_assistant.1',
    `0${anyReal}`,
    `+${anyReal}`,
    `${anyReal}.0`,
    `${anyReal}%20`,
    `%20${anyReal}`,
    `${anyReal}%00`,
    `${anyReal};drop`,
    percentEncoded(random.pick(HOSTILE_STRINGS)),
  ]);
}

/** The concrete path; only when `hostileAllowed` may its ids be other than real ones. */
function pathFor(
  operation: FuzzOperation,
  world: FuzzWorld,
  random: SeededRandom,
  hostileAllowed: boolean,
): { path: string; hostile: boolean } {
  let hostile = false;
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const real = realValuesFor(operation, name, world);
    const schema = operation.parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.schema ?? {};
    const choice =
      real.length > 0 && !hostileAllowed
        ? 'real'
        : random.weighted<string>([
            [real.length > 0 ? 4 : 0, 'real'],
            [3, 'schema'],
            [6, 'hostile'],
          ]);
    if (choice === 'real') return percentEncoded(String(random.pick(real)));
    hostile = true;
    if (choice === 'hostile') return hostileSegment(random, real);
    return percentEncoded(String(validValue(name, schema, random)));
  });
  return { path, hostile };
}

function encodeQueryValue(value: unknown): string {
  return percentEncoded(typeof value === 'string' ? value : JSON.stringify(value));
}

function queryFor(operation: FuzzOperation, world: FuzzWorld, random: SeededRandom, hostile: boolean): string {
  const pairs: string[] = [];
  for (const parameter of operation.parameters.filter((candidate) => candidate.in === 'query')) {
    const real = realValuesFor(operation, parameter.name, world);
    if (!parameter.required && random.chance(0.4)) continue;
    if (hostile && random.chance(0.5)) {
      const value = random.chance(0.5) ? hostileValue(parameter.schema ?? {}, random) : hostileSegment(random, real);
      pairs.push(`${parameter.name}=${typeof value === 'string' && value.includes('%') ? value : encodeQueryValue(value)}`);
    } else {
      const value = real.length > 0 && random.chance(0.8) ? random.pick(real) : validValue(parameter.name, parameter.schema ?? {}, random);
      pairs.push(`${parameter.name}=${encodeQueryValue(value)}`);
    }
  }
  if (hostile) {
    const name = operation.parameters.find((parameter) => parameter.in === 'query')?.name ?? 'limit';
    pairs.push(
      random.pick([
        `${name}=1&${name}=2`,
        `${name}[]=1`,
        `${name}[a]=b`,
        `${name}=`,
        name,
        `${name}=%00`,
        `${name}=%zz`,
        `${name}=${'q'.repeat(5_000)}`,
        `${name}=%F0%9F%A6%99`,
        `unknown_parameter=1`,
        `__proto__[polluted]=1`,
        `constructor[prototype][polluted]=1`,
        `${'k'.repeat(2_000)}=v`,
        `=`,
        `&&&`,
      ]),
    );
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** A valid body for the operation, with the model of a chat aimed at a real assistant most of the time. */
function friendlyBody(operation: FuzzOperation, world: FuzzWorld, random: SeededRandom, atBound?: 'low' | 'high'): Record<string, unknown> {
  const body = validObject(operation.templateSchema ?? {}, random, atBound);
  if ('model' in body || operation.path.endsWith('/chat/completions')) {
    if (random.chance(0.85)) body.model = random.pick(world.models);
  }
  if (Array.isArray(body.messages) && random.chance(0.7)) {
    // Most real conversations end with the learner's turn; ending there reaches the model and the tools.
    body.messages = [
      ...body.messages.slice(0, 3),
      { role: 'user', content: random.pick(['How do cells make energy?', 'Resume el texto 🦙', 'x', '{user_input}']) },
    ];
    body.stream = random.chance(0.5);
  }
  // Providers are set on their own route and in the one settings document.
  if (operation.label === 'PATCH /api/organizations/{id}/providers' || operation.label === 'PATCH /api/organizations/{id}/settings')
    aimAtFakeProviders(body, world);
  if (operation.label === 'POST /api/auth/login' && random.chance(0.3)) return { email: world.login.email, password: world.login.password };
  // Pages are read from loopback only (the fake provider, which answers them 404), never from the internet.
  if (/^POST \/api\/knowledge-bases\/\{id\}\/web-(?:pages|crawls)$/.test(operation.label) && random.chance(0.85))
    body.url = `${world.providerUrls.openai}/${random.pick(['course/', 'notes', 'videos/cells'])}`;
  if (operation.label === 'POST /api/knowledge-bases/{id}/documents') {
    // The document's JSON form (LAMB's) is {documents: [{text, metadata}]}, which /openapi.json does not describe.
    return {
      documents: [
        {
          text: random.pick(['The heart pumps blood.', '# Rivers\n\nMeanders form.', 'ok']),
          metadata: { title: random.pick(['Heart', 'Rivers', '🦙']) },
        },
      ],
    };
  }
  return body;
}

/**
 * Points generated provider URLs at the fake providers: an organization pointed at a server that
 * does not answer gets a truthful 502 on its chats, which says nothing about Merino's own faults.
 */
function aimAtFakeProviders(body: Record<string, any>, world: FuzzWorld): void {
  const providers = body.providers;
  if (typeof providers?.openai?.base_url === 'string') providers.openai.base_url = world.providerUrls.openai;
  if (typeof providers?.ollama?.base_url === 'string') providers.ollama.base_url = world.providerUrls.ollama;
}

/** Every (path to a node, node) in a JSON value, to pick one node to break. */
function nodesOf(
  value: unknown,
  trail: Array<string | number> = [],
  found: Array<Array<string | number>> = [],
): Array<Array<string | number>> {
  if (trail.length > 0) found.push(trail);
  if (Array.isArray(value)) value.forEach((item, index) => nodesOf(item, [...trail, index], found));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) nodesOf(item, [...trail, key], found);
  return found;
}

function replacedAt(value: unknown, trail: Array<string | number>, replacement: unknown): unknown {
  if (trail.length === 0) return replacement;
  const [head, ...rest] = trail;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head!] = replacedAt(copy[head!], rest, replacement);
  return copy;
}

interface GeneratedBody {
  variant: string;
  body: string | Uint8Array;
  contentType?: string;
  extraHeaders?: Record<string, string>;
  truncatedOnTheWire?: boolean;
}

function jsonBody(operation: FuzzOperation, world: FuzzWorld, random: SeededRandom): GeneratedBody {
  const schema = operation.templateSchema ?? {};
  const friendly = friendlyBody(operation, world, random);
  const properties = propertyNames(schema);
  const text = JSON.stringify(friendly);
  const variant = random.weighted<string>([
    [20, 'valid'],
    [4, 'at lower bounds'],
    [4, 'at upper bounds'],
    [26, 'one field hostile'],
    [10, 'one nested node hostile'],
    [4, 'a required field missing'],
    [3, 'an extra field'],
    [2, 'every field null'],
    [2, 'an empty object'],
    [3, 'invalid JSON'],
    [3, 'JSON cut short'],
    [4, 'a wrong content type'],
    [2, 'invalid UTF-8'],
    [1, 'a byte-order mark'],
    [2, 'a top-level non-object'],
    [1, 'duplicate keys'],
    [1, 'nested past the depth limit'],
    [2, 'a compressed-body claim'],
    [0.3, 'over the body limit'],
    [1, 'cut short on the wire'],
  ]);
  switch (variant) {
    case 'valid':
      return { variant, body: text };
    case 'at lower bounds':
    case 'at upper bounds':
      return { variant, body: JSON.stringify(friendlyBody(operation, world, random, variant === 'at lower bounds' ? 'low' : 'high')) };
    case 'one field hostile': {
      const name =
        properties.length > 0 && random.chance(0.9)
          ? random.pick(properties)
          : random.pick(['name', 'messages', 'model', 'metadata', 'config']);
      const value = hostileValue(schema.properties?.[name] ?? {}, random);
      return { variant: `${variant}: ${name}`, body: JSON.stringify({ ...friendly, [name]: value }) };
    }
    case 'one nested node hostile': {
      const nodes = nodesOf(friendly);
      if (nodes.length === 0) return { variant: 'valid (no nested node)', body: text };
      const trail = random.pick(nodes);
      const replacement = random.pick<unknown>([
        null,
        undefined,
        7,
        -1,
        1e308,
        true,
        'text',
        '',
        [],
        {},
        { role: 'user' },
        deeplyNested('object', 80),
        ...HOSTILE_STRINGS.slice(0, 12),
      ]);
      return { variant: `${variant}: ${trail.join('.')}`, body: JSON.stringify(replacedAt(friendly, trail, replacement)) };
    }
    case 'a required field missing': {
      const required: string[] = schema.required ?? [];
      const dropped = required.length > 0 ? random.pick(required) : random.pick(Object.keys(friendly).concat(['name']));
      const { [dropped]: _dropped, ...rest } = friendly;
      return { variant: `${variant}: ${dropped}`, body: JSON.stringify(rest) };
    }
    case 'an extra field':
      return { variant, body: JSON.stringify({ ...friendly, unexpected_field: random.pick<unknown>(['surprise', 1, { a: 1 }]) }) };
    case 'every field null':
      return {
        variant,
        body: JSON.stringify(Object.fromEntries([...new Set([...properties, ...Object.keys(friendly)])].map((name) => [name, null]))),
      };
    case 'an empty object':
      return { variant, body: '{}' };
    case 'invalid JSON':
      return {
        variant,
        body: random.pick([
          '{',
          '{"a":}',
          '{"name":"x",}',
          "{'name':'x'}",
          '{"name":"x"}}',
          'undefined',
          'NaN',
          '{"n": 01}',
          '{"n": .5}',
          '{"s": "\\x41"}',
          '\u0000',
        ]),
      };
    case 'JSON cut short':
      return { variant, body: text.slice(0, random.integer(1, Math.max(1, text.length - 1))) };
    case 'a wrong content type': {
      const contentType = random.pick([
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'APPLICATION/JSON',
        'application/json-patch+json',
        'application/vnd.api+json',
        'application/json, text/plain',
        '*/*',
        'application/octet-stream',
        'garbage',
        '',
      ]);
      return { variant: `${variant}: ${contentType || '(empty)'}`, body: text, contentType };
    }
    case 'invalid UTF-8': {
      const prefix = Buffer.from(text.slice(0, -1));
      const bad = Buffer.from([0x2c, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x22, 0x7d]);
      return { variant, body: new Uint8Array(Buffer.concat([prefix.length > 1 ? prefix : Buffer.from('{"a":1'), bad])) };
    }
    case 'a byte-order mark':
      return { variant, body: `\ufeff${text}` };
    case 'a top-level non-object':
      return { variant, body: random.pick(['[]', JSON.stringify([friendly]), '"text"', '42', 'null', 'true', '""']) };
    case 'duplicate keys':
      return {
        variant,
        body: `{${text.slice(1, -1)}${text.length > 2 ? ',' : ''}"name":{"nested":[1,2]},"name":"again","__proto__":{"polluted":true}}`,
      };
    case 'nested past the depth limit': {
      // Written as text: JSON.stringify itself overflows the stack on the deepest of these.
      const depth = random.pick([65, 200, 5_000]);
      return {
        variant: `${variant} (${depth})`,
        body: random.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
      };
    }
    case 'a compressed-body claim':
      return {
        variant,
        body: text,
        extraHeaders: { 'content-encoding': random.pick(['gzip', 'br', 'deflate', 'identity, gzip', 'x-unknown']) },
      };
    case 'over the body limit':
      return { variant, body: JSON.stringify({ ...friendly, padding: 'p'.repeat(1_100_000) }) };
    default:
      return { variant, body: text, truncatedOnTheWire: true };
  }
}

/** A body for an operation that takes none: usually nothing, sometimes something odd. */
function bodyForBodiless(random: SeededRandom): GeneratedBody | undefined {
  if (random.chance(0.85)) return undefined;
  return random.pick<GeneratedBody>([
    { variant: 'an unexpected JSON body', body: '{"unexpected":true}' },
    { variant: 'an empty JSON body', body: '' },
    { variant: 'invalid JSON on a bodiless route', body: '{' },
    { variant: 'a text body', body: 'hello', contentType: 'text/plain' },
    { variant: 'a compressed-body claim', body: '{}', extraHeaders: { 'content-encoding': 'gzip' } },
  ]);
}

const ROLE_WEIGHTS: ReadonlyArray<readonly [number, RoleName]> = [
  [2, 'anonymous'],
  [1, 'bad-credential'],
  [4, 'learner'],
  [5, 'creator'],
  [3, 'organization-admin'],
  [5, 'system-admin'],
];

/** Odd but harmless extra request headers. */
function oddHeaders(random: SeededRandom): Record<string, string> {
  if (!random.chance(0.08)) return {};
  return random.pick<Record<string, string>>([
    { 'x-request-id': 'x'.repeat(500) },
    { 'x-request-id': '../../etc' },
    { accept: 'text/event-stream' },
    { accept: 'application/xml' },
    { 'accept-language': 'es-ES,es;q=0.9,*;q=0.1' },
    { 'x-forwarded-for': '127.0.0.1, 10.0.0.1, ::1, garbage' },
    { 'x-openwebui-user-email': 'victim@fuzz.test' },
    // Header values are Latin-1 on the wire; UTF-8 bytes read as Latin-1 are what a careless proxy forwards.
    { 'x-openwebui-user-name': Buffer.from('Llama 🦙 Ñandú', 'utf8').toString('latin1'), 'x-openwebui-user-id': '../1' },
    { cookie: 'merino_session=forged; other=1' },
    { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
  ]);
}

/**
 * The roles of each operation's first, plain requests (real ids, a valid body, clean headers): every
 * operation gets a fair chance to succeed, so the run reaches past validation everywhere and not only
 * where the dice fall well.
 */
const PLAIN_REQUEST_ROLES: readonly RoleName[] = ['system-admin', 'creator'];

/** `count` generated requests for one operation. */
export function casesFor(operation: FuzzOperation, world: FuzzWorld, random: SeededRandom, count: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (let index = 0; index < count; index += 1) {
    const plain = index < PLAIN_REQUEST_ROLES.length;
    let role: FuzzCase['role'] = plain ? PLAIN_REQUEST_ROLES[index]! : random.weighted(ROLE_WEIGHTS);
    const headers: Record<string, string> = plain ? {} : { ...oddHeaders(random) };
    // Logging out ends the session it is sent with, so it only ever ends sessions made for that.
    if (operation.label === 'POST /api/auth/logout' && role !== 'anonymous' && role !== 'bad-credential') role = 'disposable-session';
    const token = role === 'disposable-session' ? random.pick(world.disposableTokens) : world.tokens[role];
    if (token !== undefined)
      headers.authorization =
        !plain && random.chance(0.03)
          ? random.pick([`Basic ${token}`, `Bearer  ${token}`, `bearer ${token}`, 'Bearer', `Bearer ${token}x`])
          : `Bearer ${token}`;

    const hostileAddress = !plain && random.chance(0.25);
    const { path, hostile } = pathFor(operation, world, random, hostileAddress);
    const url = path + queryFor(operation, world, random, hostileAddress && (random.chance(0.6) || !hostile));

    let generated: GeneratedBody | undefined;
    if (operation.takesMultipart && (operation.jsonSchema === undefined || random.chance(0.7))) {
      const multipart = multipartBody(random);
      generated = { variant: `multipart: ${multipart.variant}`, body: multipart.body, contentType: multipart.contentType };
    } else if (operation.jsonSchema !== undefined)
      generated = plain
        ? { variant: 'valid', body: JSON.stringify(friendlyBody(operation, world, random)) }
        : jsonBody(operation, world, random);
    else if (!plain) generated = bodyForBodiless(random);

    if (generated !== undefined) {
      const contentType = generated.contentType ?? 'application/json';
      if (contentType !== '') headers['content-type'] = contentType;
      Object.assign(headers, generated.extraHeaders);
    }
    cases.push({
      label: operation.label,
      variant: [generated?.variant ?? 'no body', hostileAddress ? 'hostile address' : ''].filter(Boolean).join('; '),
      role,
      method: operation.method,
      url,
      headers,
      ...(generated !== undefined && { body: generated.body }),
      ...(generated?.truncatedOnTheWire === true && { truncatedOnTheWire: true }),
    });
  }
  return cases;
}

/**
 * The order to send cases in: shuffled, so operations interleave as real traffic does, with every
 * DELETE last, so the objects other requests aim at exist for most of the run.
 */
export function sendingOrder(cases: readonly FuzzCase[], random: SeededRandom): FuzzCase[] {
  const shuffled = [...cases];
  for (let index = shuffled.length - 1; index > 0; index -= 1) {
    const other = random.integer(0, index);
    [shuffled[index], shuffled[other]] = [shuffled[other]!, shuffled[index]!];
  }
  return [...shuffled.filter((fuzzCase) => fuzzCase.method !== 'DELETE'), ...shuffled.filter((fuzzCase) => fuzzCase.method === 'DELETE')];
}
