// Proves over real HTTP, on SQLite and PostgreSQL, who gets 200/204, 403 or 404 on every assistant endpoint, that learners see summaries only, and that lists agree with per-item access.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASSISTANT_CALLERS,
  ASSISTANT_STATES,
  SHARED_LEARNER_EMAIL,
  signInAssistantCallers,
  type AssistantCaller,
  type AssistantState,
} from './support/assistant-callers.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

interface Endpoint {
  label: string;
  method: string;
  suffix: string;
  /** Changes state that decides access, so it runs on a throw-away copy of the assistant. */
  destructive: boolean;
  successStatus: number;
  body?: (state: AssistantState) => unknown;
}

const ENDPOINTS = {
  get: { label: 'GET /api/assistants/{id}', method: 'GET', suffix: '', destructive: false, successStatus: 200 },
  patch: {
    label: 'PATCH /api/assistants/{id}',
    method: 'PATCH',
    suffix: '',
    destructive: false,
    successStatus: 200,
    body: () => ({ description: 'x' }),
  },
  delete: { label: 'DELETE /api/assistants/{id}', method: 'DELETE', suffix: '', destructive: true, successStatus: 204 },
  publish: {
    label: 'PUT /api/assistants/{id}/publish',
    method: 'PUT',
    suffix: '/publish',
    destructive: true,
    successStatus: 200,
    body: (state: AssistantState) => ({ published: state !== 'published' }),
  },
  getShares: { label: 'GET /api/assistants/{id}/shares', method: 'GET', suffix: '/shares', destructive: false, successStatus: 200 },
  putShares: {
    label: 'PUT /api/assistants/{id}/shares',
    method: 'PUT',
    suffix: '/shares',
    destructive: true,
    successStatus: 200,
    body: () => ({ user_emails: [] }),
  },
  export: { label: 'GET /api/assistants/{id}/export', method: 'GET', suffix: '/export', destructive: false, successStatus: 200 },
} as const satisfies Record<string, Endpoint>;
type EndpointName = keyof typeof ENDPOINTS;
const ENDPOINT_ORDER: readonly EndpointName[] = ['get', 'patch', 'delete', 'publish', 'getShares', 'putShares', 'export'];

/** 'ok' is the endpoint's success status (200, or 204 for DELETE). */
type Expected = 'ok' | 403 | 404;
const OK: Expected = 'ok';

// Columns follow ENDPOINT_ORDER:                       GET  PATCH DELETE publish GET-shares PUT-shares export
const EXPECTATIONS: ReadonlyArray<[AssistantCaller, AssistantState, readonly Expected[]]> = [
  ['the system admin', 'private', [OK, OK, OK, OK, OK, OK, OK]],
  ['the system admin', 'shared', [OK, OK, OK, OK, OK, OK, OK]],
  ['the system admin', 'published', [OK, OK, OK, OK, OK, OK, OK]],
  ['the system admin', 'deleted', [404, 404, 404, 404, 404, 404, 404]],

  ['the organization A admin', 'private', [OK, OK, OK, OK, OK, OK, OK]],
  ['the organization A admin', 'shared', [OK, OK, OK, OK, OK, OK, OK]],
  ['the organization A admin', 'published', [OK, OK, OK, OK, OK, OK, OK]],
  ['the organization A admin', 'deleted', [404, 404, 404, 404, 404, 404, 404]],

  ['the owner', 'private', [OK, OK, OK, OK, OK, OK, OK]],
  ['the owner', 'shared', [OK, OK, OK, OK, OK, OK, OK]],
  ['the owner', 'published', [OK, OK, OK, OK, OK, OK, OK]],
  ['the owner', 'deleted', [404, 404, 404, 404, 404, 404, 404]],

  ['another creator of organization A', 'private', [404, 404, 404, 404, 404, 404, 404]],
  ['another creator of organization A', 'shared', [404, 404, 404, 404, 404, 404, 404]],
  ['another creator of organization A', 'published', [OK, 403, 403, 403, 403, 403, 403]],
  ['another creator of organization A', 'deleted', [404, 404, 404, 404, 404, 404, 404]],

  ['the learner it is shared with', 'private', [404, 404, 404, 404, 404, 404, 404]],
  ['the learner it is shared with', 'shared', [OK, 403, 403, 403, 403, 403, OK]],
  ['the learner it is shared with', 'published', [OK, 403, 403, 403, 403, 403, 403]],
  ['the learner it is shared with', 'deleted', [404, 404, 404, 404, 404, 404, 404]],

  ['a learner of organization A', 'private', [404, 404, 404, 404, 404, 404, 404]],
  ['a learner of organization A', 'shared', [404, 404, 404, 404, 404, 404, 404]],
  ['a learner of organization A', 'published', [OK, 403, 403, 403, 403, 403, 403]],
  ['a learner of organization A', 'deleted', [404, 404, 404, 404, 404, 404, 404]],

  ['the organization B admin', 'private', [404, 404, 404, 404, 404, 404, 404]],
  ['the organization B admin', 'shared', [404, 404, 404, 404, 404, 404, 404]],
  ['the organization B admin', 'published', [404, 404, 404, 404, 404, 404, 404]],
  ['the organization B admin', 'deleted', [404, 404, 404, 404, 404, 404, 404]],

  ['a learner of organization B', 'private', [404, 404, 404, 404, 404, 404, 404]],
  ['a learner of organization B', 'shared', [404, 404, 404, 404, 404, 404, 404]],
  ['a learner of organization B', 'published', [404, 404, 404, 404, 404, 404, 404]],
  ['a learner of organization B', 'deleted', [404, 404, 404, 404, 404, 404, 404]],
];

/** Which of the four fixtures each caller's list holds. */
const EXPECTED_LISTED_STATES: Record<AssistantCaller, readonly AssistantState[]> = {
  'the system admin': ['private', 'shared', 'published'],
  'the organization A admin': ['private', 'shared', 'published'],
  'the owner': ['private', 'shared', 'published'],
  'another creator of organization A': ['published'],
  'the learner it is shared with': ['shared', 'published'],
  'a learner of organization A': ['published'],
  'the organization B admin': [],
  'a learner of organization B': [],
};

const CONFIGURATION_KEYS = ['system_prompt', 'prompt_template', 'metadata', 'rag_collections', 'rag_top_k'] as const;

const MATRIX_CASES = EXPECTATIONS.flatMap(([caller, state, statuses]) =>
  ENDPOINT_ORDER.map((endpointName, index) => ({ caller, state, endpointName, expected: statuses[index] as Expected })),
);

function caseName(caller: AssistantCaller, state: AssistantState, endpoint: Endpoint, expected: Expected): string {
  if (expected === 'ok') return `lets ${caller} ${endpoint.label} on the ${state} assistant (${endpoint.successStatus})`;
  if (expected === 403) return `refuses ${caller} ${endpoint.label} on the ${state} assistant with 403, since they can see it`;
  return `hides the ${state} assistant from ${caller} on ${endpoint.label} with 404`;
}

describe.each(TEST_DIALECTS)('assistant access over HTTP on %s', (dialect) => {
  let server: TestServer;
  const tokens = {} as Record<AssistantCaller, string>;
  let organizationAId: number;
  let organizationBId: number;
  const fixtures = {} as Record<AssistantState, number>;
  let organizationBAssistantId: number;
  let copyCounter = 0;

  async function call(caller: AssistantCaller, method: string, path: string, body?: unknown): Promise<JsonResponse> {
    return request(server, method, path, { token: tokens[caller], ...(body !== undefined && { body }) });
  }

  async function expectStatus(response: JsonResponse, status: number): Promise<void> {
    expect(response.status, response.text).toBe(status);
  }

  /** Creates an assistant of the owner in the given state, through the API. */
  async function createAssistantInState(state: AssistantState): Promise<number> {
    copyCounter += 1;
    const created = await call('the owner', 'POST', '/api/assistants', {
      name: `${state} assistant ${copyCounter}`,
      description: `An assistant that is ${state}`,
      system_prompt: 'You are a careful tutor.',
      prompt_template: 'Question: {user_input}',
      metadata: { llm: 'gpt-4o-mini', rag_processor: 'no_rag' },
      rag_collections: ['kb-1'],
    });
    await expectStatus(created, 201);
    const id = created.body.id as number;
    if (state === 'shared')
      await expectStatus(await call('the owner', 'PUT', `/api/assistants/${id}/shares`, { user_emails: [SHARED_LEARNER_EMAIL] }), 200);
    if (state === 'published')
      await expectStatus(await call('the owner', 'PUT', `/api/assistants/${id}/publish`, { published: true }), 200);
    if (state === 'deleted') await expectStatus(await call('the owner', 'DELETE', `/api/assistants/${id}`), 204);
    return id;
  }

  /** Every page of the caller's list, as ids in list order. */
  async function listedIds(caller: AssistantCaller): Promise<number[]> {
    const ids: number[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await call(caller, 'GET', `/api/assistants?limit=200&offset=${offset}`);
      await expectStatus(page, 200);
      ids.push(...(page.body.items as Array<{ id: number }>).map((item) => item.id));
      if (ids.length >= page.body.total || page.body.items.length === 0) return ids;
    }
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const callers = await signInAssistantCallers(server, await loginAsAdmin(server));
    Object.assign(tokens, callers.sessions);
    ({ organizationAId, organizationBId } = callers);
    for (const state of ASSISTANT_STATES) fixtures[state] = await createAssistantInState(state);
    const organizationBAssistant = await call('the organization B admin', 'POST', '/api/assistants', {
      name: 'Organization B private assistant',
    });
    await expectStatus(organizationBAssistant, 201);
    organizationBAssistantId = organizationBAssistant.body.id as number;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('places organization A (the system organization) and organization B apart', () => {
    expect(organizationAId).toEqual(expect.any(Number));
    expect(organizationBId).not.toBe(organizationAId);
  });

  describe('the status of every caller × assistant state × endpoint', () => {
    it('covers every caller × state pair exactly once', () => {
      const pairs = new Set(EXPECTATIONS.map(([caller, state]) => `${caller}/${state}`));
      expect(pairs.size).toBe(ASSISTANT_CALLERS.length * ASSISTANT_STATES.length);
      expect(EXPECTATIONS).toHaveLength(pairs.size);
    });

    for (const { caller, state, endpointName, expected } of MATRIX_CASES) {
      const endpoint: Endpoint = ENDPOINTS[endpointName];
      it(caseName(caller, state, endpoint, expected), async () => {
        const id = endpoint.destructive ? await createAssistantInState(state) : fixtures[state];
        const response = await call(caller, endpoint.method, `/api/assistants/${id}${endpoint.suffix}`, endpoint.body?.(state));
        const status = expected === 'ok' ? endpoint.successStatus : expected;
        await expectStatus(response, status);
        if (expected === 404) expect(response.body.error.code).toBe('not_found');
        if (expected === 403) expect(response.body.error.code).toBe('forbidden');
        if (expected === 'ok' && endpointName === 'get') expect(response.body.id).toBe(id);
        if (expected === 'ok' && endpointName === 'export') expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
      });
    }
  });

  describe('refused requests change nothing', () => {
    it('leaves a published assistant published, undeleted and unshared after every learner and foreign admin tried to change it', async () => {
      const id = await createAssistantInState('published');
      const intruders: AssistantCaller[] = [
        'another creator of organization A',
        'the learner it is shared with',
        'a learner of organization A',
        'the organization B admin',
        'a learner of organization B',
      ];
      for (const intruder of intruders) {
        await call(intruder, 'PATCH', `/api/assistants/${id}`, { description: 'defaced' });
        await call(intruder, 'PUT', `/api/assistants/${id}/publish`, { published: false });
        await call(intruder, 'PUT', `/api/assistants/${id}/shares`, { user_emails: ['learner.a@merino.test'] });
        await call(intruder, 'DELETE', `/api/assistants/${id}`);
      }
      const after = await call('the owner', 'GET', `/api/assistants/${id}`);
      await expectStatus(after, 200);
      expect(after.body.description).toBe('An assistant that is published');
      expect(after.body.published).toBe(true);
      expect((await call('the owner', 'GET', `/api/assistants/${id}/shares`)).body.user_emails).toEqual([]);
    });
  });

  describe('summary versus full view', () => {
    it.each(['a learner of organization A', 'another creator of organization A'] as const)(
      'shows %s only a summary of a published assistant: no system_prompt, prompt_template, metadata, rag_collections or rag_top_k',
      async (caller) => {
        const response = await call(caller, 'GET', `/api/assistants/${fixtures.published}`);
        await expectStatus(response, 200);
        for (const key of CONFIGURATION_KEYS) expect(response.body).not.toHaveProperty(key);
        expect(response.body).toMatchObject({ id: fixtures.published, name: expect.any(String), published: true });
        expect(response.body.allowed_actions).toEqual(['view', 'chat']);
      },
    );

    it('shows the learner it is shared with the full configuration, with system_prompt and metadata', async () => {
      const response = await call('the learner it is shared with', 'GET', `/api/assistants/${fixtures.shared}`);
      await expectStatus(response, 200);
      for (const key of CONFIGURATION_KEYS) expect(response.body).toHaveProperty(key);
      expect(response.body.system_prompt).toBe('You are a careful tutor.');
      expect(response.body.metadata).toMatchObject({ _format_version: 2, llm: 'gpt-4o-mini' });
      expect(response.body.allowed_actions).toEqual(['view', 'view_configuration', 'chat', 'export']);
    });

    it('shows the owner and the organization A admin every action on their assistant', async () => {
      for (const caller of ['the owner', 'the organization A admin', 'the system admin'] as const) {
        const response = await call(caller, 'GET', `/api/assistants/${fixtures.private}`);
        expect(response.body.allowed_actions).toEqual([
          'view',
          'view_configuration',
          'chat',
          'update',
          'delete',
          'publish',
          'share',
          'export',
        ]);
        for (const key of CONFIGURATION_KEYS) expect(response.body).toHaveProperty(key);
      }
    });

    it('lists a published assistant to a learner as the same summary, without configuration keys', async () => {
      const list = await call('a learner of organization A', 'GET', '/api/assistants?limit=200');
      const item = (list.body.items as Array<Record<string, unknown>>).find((candidate) => candidate.id === fixtures.published);
      expect(item).toBeDefined();
      for (const key of CONFIGURATION_KEYS) expect(item).not.toHaveProperty(key);
    });
  });

  describe('organization B assistants', () => {
    it('hides a private assistant of organization B from the organization A admin with 404', async () => {
      const response = await call('the organization A admin', 'GET', `/api/assistants/${organizationBAssistantId}`);
      await expectStatus(response, 404);
      expect(response.body.error.code).toBe('not_found');
    });

    it('lets the organization B admin manage an assistant they created in organization B', async () => {
      const response = await call('the organization B admin', 'PATCH', `/api/assistants/${organizationBAssistantId}`, { description: 'b' });
      await expectStatus(response, 200);
      expect(response.body.organization_id).toBe(organizationBId);
    });
  });

  describe('lists agree with per-item access', () => {
    it.each(ASSISTANT_CALLERS)('lists for %s exactly the expected fixtures', async (caller) => {
      const listed = new Set(await listedIds(caller));
      const listedStates = ASSISTANT_STATES.filter((state) => listed.has(fixtures[state]));
      expect(listedStates).toEqual(EXPECTED_LISTED_STATES[caller]);
    });

    it.each(ASSISTANT_CALLERS)(
      'lists for %s exactly the assistants whose GET /api/assistants/{id} answers 200, each item equal to that answer',
      async (caller) => {
        const allIds = (await server.store.db.selectFrom('assistants').select('id').orderBy('id').execute()).map((row) => row.id);
        expect(allIds.length).toBeGreaterThanOrEqual(ASSISTANT_STATES.length + 1);
        const listed = await listedIds(caller);
        expect(new Set(listed).size).toBe(listed.length);

        const viewable: number[] = [];
        const views = new Map<number, unknown>();
        for (const id of allIds) {
          const response = await call(caller, 'GET', `/api/assistants/${id}`);
          expect([200, 404]).toContain(response.status);
          if (response.status === 200) {
            viewable.push(id);
            views.set(id, response.body);
          }
        }
        expect([...listed].sort((left, right) => left - right)).toEqual(viewable);

        const fullList = await call(caller, 'GET', '/api/assistants?limit=200');
        for (const item of fullList.body.items as Array<{ id: number }>) expect(item).toEqual(views.get(item.id));
      },
    );
  });
});
