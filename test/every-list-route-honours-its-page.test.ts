/**
 * Every list route of the OpenAPI document honours its page, on both stores. The routes are found
 * in the document: each GET with a `limit` query parameter, and each GET answering `items` (a list
 * without a page is walked too, so it fails here rather than going unseen, unless it is bounded by
 * construction and listed below with why). A new list route is walked as soon as it is registered,
 * and this suite fails until it is given a way to fill it. For each, more items than a small limit
 * are made through the API; walking the pages then gives pages of at most the limit, no item twice,
 * and together exactly the whole list in its order. Hostile page input (negative, huge, fractional,
 * non-numeric, empty) is a 400 naming the parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

type JsonObject = Record<string, any>;

/** More than two pages of the small limit, and less than a page of the largest one. */
const ITEMS_MADE = 5;
const SMALL_LIMIT = 2;

/** GET routes that answer `items` without a page, each bounded by construction. */
const BOUNDED_LISTS: Record<string, string> = {
  '/api/assistants/{id}/tool-candidates': 'at most TOOL_CANDIDATES_MAXIMUM candidates, with `truncated` saying whether there were more',
};

interface ListRoute {
  path: string;
  limitMaximum: number;
}

/** What each list route walks over, made through the API; answers the path to walk, its ids filled in. */
type Filler = (world: World) => Promise<string>;

interface World {
  server: TestServer;
  adminToken: string;
  organizationId: number;
  /** Made once and shared by the routes that list the same things. */
  shared: Map<string, Promise<unknown>>;
}

async function created(world: World, path: string, body: unknown, token = world.adminToken): Promise<JsonObject> {
  const response = await request(world.server, 'POST', path, { token, body });
  expect(response.status, `POST ${path}: ${response.text}`).toBe(201);
  return response.body;
}

function once<Value>(world: World, key: string, make: () => Promise<Value>): Promise<Value> {
  if (!world.shared.has(key)) world.shared.set(key, make());
  return world.shared.get(key) as Promise<Value>;
}

function times<Value>(make: (index: number) => Promise<Value>): Promise<Value[]> {
  return Promise.all(Array.from({ length: ITEMS_MADE }, (_unused, index) => make(index)));
}

/** An assistant of the admin's with ITEMS_MADE chats, in an organization that lets owners read members' chats. */
function assistantWithChats(world: World): Promise<number> {
  return once(world, 'chats', async () => {
    const assistant = await created(world, '/api/assistants', {
      name: 'Paged tutor',
      metadata: { connector: 'bypass', llm: 'simple-bypass' },
    });
    const allowed = await request(world.server, 'PATCH', `/api/organizations/${world.organizationId}/settings`, {
      token: world.adminToken,
      body: { owners_can_read_chats: true },
    });
    expect(allowed.status, allowed.text).toBe(200);
    await times((index) => created(world, '/api/chats', { assistant_id: assistant.id, title: `Chat ${index}` }));
    return assistant.id as number;
  });
}

/** The chats' assistant with one rated answer in each of its ITEMS_MADE chats (asked one at a time: a user's answers running at once are bounded). */
function assistantWithRatedAnswers(world: World): Promise<number> {
  return once(world, 'ratings', async () => {
    const assistantId = await assistantWithChats(world);
    const chats = await request(world.server, 'GET', `/api/chats?limit=${ITEMS_MADE}`, { token: world.adminToken });
    for (const [index, chat] of (chats.body.items as JsonObject[]).entries()) {
      const asked = await request(world.server, 'POST', `/api/chats/${chat.id}/messages`, {
        token: world.adminToken,
        body: { content: `Question ${index}` },
      });
      expect(asked.status, asked.text).toBe(200);
      const kept = await request(world.server, 'GET', `/api/chats/${chat.id}`, { token: world.adminToken });
      const answer = (kept.body.messages as JsonObject[]).find((message) => message.role === 'assistant');
      const rated = await request(world.server, 'PUT', `/api/chats/${chat.id}/messages/${answer?.id}/feedback`, {
        token: world.adminToken,
        body: { rating: index % 2 === 0 ? 'up' : 'down', comment: null },
      });
      expect(rated.status, rated.text).toBe(200);
    }
    return assistantId;
  });
}

/** A bypass assistant with ITEMS_MADE test cases and ITEMS_MADE runs of them, each run waited for (an assistant's running runs are bounded). */
function assistantWithTestRuns(world: World): Promise<number> {
  return once(world, 'test-runs', async () => {
    const assistant = await created(world, '/api/assistants', {
      name: 'Tested tutor',
      metadata: { connector: 'bypass', llm: 'simple-bypass' },
    });
    const testCase = { kind: 'single_turn', turns: ['Hello'], expectations: [{ type: 'max_length', characters: 10_000 }] };
    await times((index) => created(world, `/api/assistants/${assistant.id}/tests`, { ...testCase, name: `Case ${index}` }));
    for (let index = 0; index < ITEMS_MADE; index += 1) {
      await created(world, `/api/assistants/${assistant.id}/test-runs`, { cases: 'all' });
      await world.server.services.testRuns.idle();
    }
    return assistant.id as number;
  });
}

/** A knowledge base with ITEMS_MADE documents, each queued as a job. */
function knowledgeBaseWithDocuments(world: World): Promise<number> {
  return once(world, 'documents', async () => {
    const knowledgeBase = await created(world, '/api/knowledge-bases', { name: 'Paged documents' });
    const documents = Array.from({ length: ITEMS_MADE }, (_unused, index) => ({
      text: `Paragraph ${index} about cells.`,
      metadata: { filename: `cells-${index}.txt` },
    }));
    const queued = await request(world.server, 'POST', `/api/knowledge-bases/${knowledgeBase.id}/documents`, {
      token: world.adminToken,
      body: { documents },
    });
    expect(queued.status, queued.text).toBe(202);
    return knowledgeBase.id as number;
  });
}

/** A document ingested from an upload into more than ITEMS_MADE passages of the smallest size; answers its passages' path. */
async function documentWithPassages(world: World): Promise<string> {
  const knowledgeBase = await created(world, '/api/knowledge-bases', { name: 'Paged text', chunk_size: 100, chunk_overlap: 0 });
  const paragraphs = Array.from({ length: ITEMS_MADE * 3 }, (_unused, index) => `Paragraph ${index} says how cells divide and grow.`);
  const uploaded = await uploadDocument(world.server, world.adminToken, knowledgeBase.id, 'cells.md', paragraphs.join('\n\n'));
  expect(uploaded.status, uploaded.text).toBe(202);
  expect((await waitForJob(world.server, world.adminToken, knowledgeBase.id, uploaded.body.job_id)).status).toBe('completed');
  return `/api/knowledge-bases/${knowledgeBase.id}/documents/${uploaded.body.document_id}/passages`;
}

async function uploadFile(world: World, index: number): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([`# Notes ${index}\n`]), `notes-${index}.md`);
  const response = await fetch(`${world.server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.adminToken}` },
    body: form,
  });
  expect(response.status, await response.text()).toBe(201);
}

const rubric = (index: number) => ({
  title: `Rubric ${index}`,
  criteria: [
    {
      name: 'Thesis',
      description: 'The main argument',
      weight: 1,
      levels: [
        { score: 2, label: 'Clear', description: 'clear' },
        { score: 1, label: 'Unclear', description: 'unclear' },
      ],
    },
  ],
  scoringType: 'points',
  maxScore: 10,
});

const FILLERS: Record<string, Filler> = {
  '/api/users': async (world) => {
    await times((index) => createUser(world.server, world.adminToken, { email: `paged-${index}@merino.test`, role: 'learner' }));
    return '/api/users';
  },
  '/api/organizations': async (world) => {
    await times((index) => created(world, '/api/organizations', { name: `Paged ${index}`, slug: `paged-${index}` }));
    return '/api/organizations';
  },
  // Every change above writes an entry; a few more make sure there are pages to walk.
  '/api/audit': async (world) => {
    await times((index) => created(world, '/api/organizations', { name: `Audited ${index}`, slug: `audited-${index}` }));
    return '/api/audit';
  },
  '/api/api-keys': async (world) => {
    await times((index) => created(world, '/api/api-keys', { name: `key ${index}` }));
    return '/api/api-keys';
  },
  '/api/assistants': async (world) => {
    await times((index) =>
      created(world, '/api/assistants', { name: `Paged ${index}`, metadata: { connector: 'bypass', llm: 'simple-bypass' } }),
    );
    return '/api/assistants';
  },
  '/api/rubrics': async (world) => {
    await times((index) => created(world, '/api/rubrics', rubric(index)));
    return '/api/rubrics';
  },
  '/api/templates': async (world) => {
    await times((index) => created(world, '/api/templates', { kind: 'prompt', name: `Paged template ${index}`, system_prompt: 'Ask.' }));
    return '/api/templates';
  },
  '/api/chats': async (world) => {
    await assistantWithChats(world);
    return '/api/chats';
  },
  '/api/chats/export': async (world) => {
    await assistantWithChats(world);
    return '/api/chats/export';
  },
  '/api/assistants/{id}/chats': async (world) => `/api/assistants/${await assistantWithChats(world)}/chats`,
  '/api/assistants/{id}/feedback': async (world) => `/api/assistants/${await assistantWithRatedAnswers(world)}/feedback`,
  '/api/assistants/{id}/tests': async (world) => `/api/assistants/${await assistantWithTestRuns(world)}/tests`,
  '/api/assistants/{id}/test-runs': async (world) => `/api/assistants/${await assistantWithTestRuns(world)}/test-runs`,
  '/api/knowledge-bases': async (world) => {
    await times((index) => created(world, '/api/knowledge-bases', { name: `Paged base ${index}` }));
    return '/api/knowledge-bases';
  },
  '/api/knowledge-bases/{id}/documents': async (world) => `/api/knowledge-bases/${await knowledgeBaseWithDocuments(world)}/documents`,
  '/api/knowledge-bases/{id}/jobs': async (world) => `/api/knowledge-bases/${await knowledgeBaseWithDocuments(world)}/jobs`,
  '/api/knowledge-bases/{id}/documents/{documentId}/passages': documentWithPassages,
  '/api/files': async (world) => {
    await times((index) => uploadFile(world, index));
    return '/api/files';
  },
  '/api/lti/consumers': async (world) => {
    await times((index) => created(world, '/api/lti/consumers', { name: `Moodle ${index}` }));
    return '/api/lti/consumers';
  },
  '/api/mcp-servers': async (world) => {
    await times((index) => created(world, '/api/mcp-servers', { name: `Tools ${index}`, url: `https://tools-${index}.example/mcp` }));
    return '/api/mcp-servers';
  },
  '/api/lti/platforms': async (world) => {
    await times((index) =>
      created(world, '/api/lti/platforms', {
        issuer: `https://lms-${index}.example`,
        client_id: `client-${index}`,
        deployment_ids: ['1'],
        auth_login_url: `https://lms-${index}.example/auth`,
        auth_token_url: `https://lms-${index}.example/token`,
        jwks_url: `https://lms-${index}.example/certs`,
      }),
    );
    return '/api/lti/platforms';
  },
};

function queryParameters(operation: JsonObject): JsonObject[] {
  return (operation.parameters ?? []).filter((parameter: JsonObject) => parameter.in === 'query');
}

/** GET routes whose answer is a list under `items`. */
function routesAnsweringItems(document: JsonObject): string[] {
  return Object.entries<JsonObject>(document.paths)
    .filter(([, item]) => item.get?.responses?.['200']?.content?.['application/json']?.schema?.properties?.items?.type === 'array')
    .map(([path]) => path);
}

/**
 * Every GET with a `limit` query parameter, with the largest limit it accepts; and every GET that
 * answers `items` without one and is not bounded by construction, walked as if it took a page of
 * at most PAGE_SIZE_MAX, so a list that ignores the page fails the walk rather than going unseen.
 */
function listRoutesOf(document: JsonObject, pageSizeMaximum: number): ListRoute[] {
  const paged = Object.entries<JsonObject>(document.paths).flatMap(([path, item]) => {
    const limit = item.get ? queryParameters(item.get).find((parameter) => parameter.name === 'limit') : undefined;
    return limit ? [{ path, limitMaximum: limit.schema.maximum as number }] : [];
  });
  const unpaged = routesAnsweringItems(document)
    .filter((path) => BOUNDED_LISTS[path] === undefined && !paged.some((route) => route.path === path))
    .map((path) => ({ path, limitMaximum: pageSizeMaximum }));
  return [...paged, ...unpaged];
}

/** The listed things of an answer: a page's `items`, or an export's `chats`. */
function itemsOf(body: JsonObject): JsonObject[] {
  const items = body.items ?? body.chats;
  if (!Array.isArray(items)) throw new Error(`no list in the answer: ${JSON.stringify(body).slice(0, 200)}`);
  return items;
}

function identity(item: JsonObject): string {
  const id = item.id ?? item.rubricId ?? item.chunk_index;
  if (id === undefined) throw new Error(`an item without an id: ${JSON.stringify(item).slice(0, 200)}`);
  return String(id);
}

async function listed(world: World, path: string, page: { limit: number; offset?: number }): Promise<{ ids: string[]; total?: number }> {
  const offset = page.offset === undefined ? '' : `&offset=${page.offset}`;
  const response = await request(world.server, 'GET', `${path}?limit=${page.limit}${offset}`, { token: world.adminToken });
  expect(response.status, `GET ${path}: ${response.text}`).toBe(200);
  return { ids: itemsOf(response.body).map(identity), total: response.body.total };
}

/** Walks the pages of SMALL_LIMIT and says what is wrong with them, if anything. */
async function pageProblems(world: World, route: ListRoute, path: string): Promise<string[]> {
  const whole = await listed(world, path, { limit: route.limitMaximum });
  if (whole.ids.length <= SMALL_LIMIT) return [`${route.path}: only ${whole.ids.length} items were made, not more than ${SMALL_LIMIT}`];
  if (whole.ids.length >= route.limitMaximum)
    return [`${route.path}: ${whole.ids.length} items do not fit in one page of the largest limit`];
  const problems: string[] = [];
  const walked: string[] = [];
  for (let offset = 0; ; offset += SMALL_LIMIT) {
    const page = await listed(world, path, { limit: SMALL_LIMIT, offset });
    if (page.ids.length > SMALL_LIMIT)
      problems.push(`${route.path}: offset ${offset} answered ${page.ids.length} items for limit ${SMALL_LIMIT}`);
    if (page.total !== undefined && page.total !== whole.ids.length)
      problems.push(`${route.path}: offset ${offset} gave total ${page.total}, the list holds ${whole.ids.length}`);
    walked.push(...page.ids);
    if (page.ids.length === 0 || offset > whole.ids.length) break;
  }
  if (new Set(walked).size !== walked.length) problems.push(`${route.path}: the pages overlap (${walked.join(', ')})`);
  if (walked.join(',') !== whole.ids.join(','))
    problems.push(`${route.path}: the pages together give ${walked.join(', ')}, the whole list is ${whole.ids.join(', ')}`);
  return problems;
}

const HOSTILE_VALUES = ['-1', '99999999999999999999', '1.5', 'two', ''];

describe.each(TEST_DIALECTS)('every list route honours its page on %s', (dialect) => {
  let world: World;
  let document: JsonObject;
  let routes: ListRoute[];

  beforeAll(async () => {
    const server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    const me = await request(server, 'GET', '/api/me', { token: adminToken });
    world = { server, adminToken, organizationId: me.body.organization_id, shared: new Map() };
    document = (await request(server, 'GET', '/openapi.json')).body;
    routes = listRoutesOf(document, server.services.settings.pageSizeMaximum);
  });

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await world?.server.close();
  });

  it('finds the list routes in the OpenAPI document, and knows how to fill each of them', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.map((route) => route.path).filter((path) => FILLERS[path] === undefined)).toEqual([]);
  });

  it('gives every list route both a limit and an offset, unless it is bounded by construction', () => {
    const unpaged = routes.filter((route) =>
      ['limit', 'offset'].some((name) => !queryParameters(document.paths[route.path].get).some((parameter) => parameter.name === name)),
    );
    expect(unpaged.map((route) => route.path)).toEqual([]);
  });

  it('answers pages that are bounded, disjoint and together the whole list, on every list route', async () => {
    const problems: string[] = [];
    for (const route of routes) {
      const fill = FILLERS[route.path];
      if (fill === undefined) continue; // reported by the first test
      problems.push(...(await pageProblems(world, route, await fill(world))));
    }
    expect(problems).toEqual([]);
  });

  it('refuses a negative, huge, fractional or non-numeric limit or offset with a 400 naming the parameter', async () => {
    const problems: string[] = [];
    for (const route of routes) {
      const path = route.path.replace(/\{[^}]+\}/g, '1');
      for (const name of ['limit', 'offset'])
        for (const value of HOSTILE_VALUES) {
          const response = await request(world.server, 'GET', `${path}?${name}=${encodeURIComponent(value)}`, { token: world.adminToken });
          if (response.status !== 400 || response.body?.error?.param !== name)
            problems.push(`${route.path}?${name}=${value}: ${response.status} ${response.text.slice(0, 200)}`);
        }
    }
    expect(problems).toEqual([]);
  });
});
