// Proves over real HTTP, on each test store, what the assistant list page needs from the API: every view says whether the assistant is an orchestrator and whether it is shared with the caller, only those who may manage sharing see how many it is shared with, `type=orchestrator` narrows the list to orchestrators, and GET /api/me tells whether the user may create assistants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { fourRolesInTwoOrganizations } from './support/two-organizations.js';

const MULTI_TOOL = { assistant_type: 'multi_tool', connector: 'bypass', llm: 'simple-bypass' };

describe.each(TEST_DIALECTS)('the list marks of assistants on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let owner: string;
  let colleague: string;
  let learner: string;
  let outsider: string;
  const ids = { classic: 0, multiTool: 0, orchestrator: 0 };

  async function create(token: string, body: Record<string, unknown>): Promise<number> {
    const response = await request(server, 'POST', '/api/assistants', { token, body });
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }

  async function listed(token: string, query = ''): Promise<Array<Record<string, unknown>>> {
    const response = await request(server, 'GET', `/api/assistants?limit=50${query}`, { token });
    expect(response.status, response.text).toBe(200);
    return response.body.items as Array<Record<string, unknown>>;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    ({ owner, colleague, learner, outsider } = await fourRolesInTwoOrganizations(server, adminToken));
    ids.classic = await create(owner, { name: 'Classic tutor' });
    ids.multiTool = await create(owner, { name: 'Tool user', metadata: MULTI_TOOL });
    ids.orchestrator = await create(owner, {
      name: 'Conductor',
      metadata: { ...MULTI_TOOL, tools: [{ type: 'assistant', enabled: true, config: { assistant_id: ids.multiTool } }] },
    });
    const shared = await request(server, 'PUT', `/api/assistants/${ids.classic}/shares`, {
      token: owner,
      body: { user_emails: ['learner@merino.test', 'colleague@merino.test'] },
    });
    expect(shared.status, shared.text).toBe(200);
    const published = await request(server, 'PUT', `/api/assistants/${ids.orchestrator}/publish`, {
      token: owner,
      body: { published: true },
    });
    expect(published.status, published.text).toBe(200);
  });

  afterAll(async () => {
    await server.close();
  });

  it('shows the owner which assistant is an orchestrator and how many users each is shared with', async () => {
    const items = await listed(owner);
    const byId = new Map(items.map((item) => [item.id, item]));
    expect(byId.get(ids.orchestrator)).toMatchObject({ assistant_type: 'multi_tool', is_orchestrator: true, shared_with_count: 0 });
    expect(byId.get(ids.multiTool)).toMatchObject({ assistant_type: 'multi_tool', is_orchestrator: false, shared_with_count: 0 });
    expect(byId.get(ids.classic)).toMatchObject({ is_orchestrator: false, shared_with_caller: false, shared_with_count: 2 });
  });

  it('tells a same-organization creator it is shared with them, without the share count it may not manage', async () => {
    const items = await listed(colleague);
    const classic = items.find((item) => item.id === ids.classic);
    expect(classic).toMatchObject({ shared_with_caller: true });
    expect(classic).not.toHaveProperty('shared_with_count');
    expect(items.find((item) => item.id === ids.orchestrator)).toMatchObject({ is_orchestrator: true, shared_with_caller: false });
  });

  it('gives a learner the marks on the summary view, which has no metadata', async () => {
    const items = await listed(learner);
    expect(items.map((item) => item.id).sort()).toEqual([ids.classic, ids.orchestrator].sort());
    const orchestrator = items.find((item) => item.id === ids.orchestrator)!;
    expect(orchestrator).not.toHaveProperty('metadata');
    expect(orchestrator).toMatchObject({ is_orchestrator: true, published: true, allowed_actions: ['view', 'chat'] });
    expect(items.find((item) => item.id === ids.classic)).toMatchObject({ shared_with_caller: true });
    expect(orchestrator).not.toHaveProperty('shared_with_count');
  });

  it('shows another organization nothing of them', async () => {
    expect(await listed(outsider)).toEqual([]);
  });

  it('narrows to orchestrators with type=orchestrator, while multi_tool still includes them', async () => {
    expect((await listed(owner, '&type=orchestrator')).map((item) => item.id)).toEqual([ids.orchestrator]);
    expect((await listed(owner, '&type=multi_tool')).map((item) => item.id)).toEqual([ids.orchestrator, ids.multiTool]);
    expect((await listed(owner, '&type=classic')).map((item) => item.id)).toEqual([ids.classic]);
  });

  it('keeps the orchestrator mark in step when its assistant tool is turned off', async () => {
    const response = await request(server, 'PATCH', `/api/assistants/${ids.orchestrator}`, {
      token: owner,
      body: { metadata: { ...MULTI_TOOL, tools: [{ type: 'assistant', enabled: false, config: { assistant_id: ids.multiTool } }] } },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.is_orchestrator).toBe(false);
    expect(await listed(owner, '&type=orchestrator')).toEqual([]);
    const restored = await request(server, 'PATCH', `/api/assistants/${ids.orchestrator}`, {
      token: owner,
      body: { metadata: { ...MULTI_TOOL, tools: [{ type: 'assistant', enabled: true, config: { assistant_id: ids.multiTool } }] } },
    });
    expect(restored.body.is_orchestrator).toBe(true);
  });

  it('refuses a type it does not know, naming the parameter', async () => {
    const response = await request(server, 'GET', '/api/assistants?type=conductor', { token: owner });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_query', param: 'type' });
  });

  it('tells through /api/me who may create assistants and manage LTI', async () => {
    for (const [token, createAssistants, manageLti] of [
      [adminToken, true, true],
      [owner, true, false],
      [outsider, true, false],
      [learner, false, false],
    ] as const) {
      const response = await request(server, 'GET', '/api/me', { token });
      expect(response.status, response.text).toBe(200);
      expect(response.body.capabilities).toMatchObject({ create_assistants: createAssistants, manage_lti: manageLti });
    }
    expect((await request(server, 'GET', '/api/me')).status).toBe(401);
  });
});
