/**
 * Proves over real HTTP, on each test store, that saving an assistant whose tools include
 * `{type: "mcp", config: {server_id, tools}}` checks that server_id names an MCP server of the
 * assistant's owner's organization (the permission module decides, as it does at chat time): the
 * owner saves with their organization's server; an admin of the same organization changing it is
 * checked as the owner; another organization's server, or one that does not exist, is a 400
 * `invalid_metadata` naming `metadata.tools[i].config.server_id`, worded alike so ids cannot be
 * probed, on create, update and import; learners get 403 and anonymous callers 401; hostile
 * server ids are a 400 naming the field, and 50 saves at once all succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const SERVER_ID_PATH = 'metadata.tools[1].config.server_id';

function metadataWith(serverId: unknown): Record<string, unknown> {
  return {
    assistant_type: 'multi_tool',
    connector: 'openai',
    llm: 'gpt-4o-mini',
    tools: [
      { type: 'weather', enabled: false, config: {} },
      { type: 'mcp', enabled: true, config: { server_id: serverId, tools: ['search_catalogue'] } },
    ],
  };
}

describe.each(TEST_DIALECTS)('MCP tool entries of an assistant on %s', (dialect) => {
  let server: TestServer;
  let systemAdmin: string;
  let owner: string;
  let admin: string;
  let learner: string;
  let otherCreator: string;
  let ownServer: number;
  let otherServer: number;

  const save = (token: string | undefined, serverId: unknown): Promise<JsonResponse> =>
    request(server, 'POST', '/api/assistants', {
      ...(token !== undefined && { token }),
      body: { name: 'Librarian', system_prompt: 'Help.', metadata: metadataWith(serverId) },
    });

  function expectRefusedServer(response: JsonResponse, serverId: unknown): void {
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_metadata');
    expect(response.body.error.param).toBe(SERVER_ID_PATH);
    expect(response.body.error.message).toContain(`names MCP server ${String(serverId)}, which is not one of the MCP servers`);
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    systemAdmin = await loginAsAdmin(server);
    [owner, admin, learner, otherCreator] = (await peopleInTwoOrganizations(server, systemAdmin, [
      { email: 'owner@a.test', role: 'creator', organization: 'A' },
      { email: 'admin@a.test', role: 'admin', organization: 'A' },
      { email: 'learner@a.test', role: 'learner', organization: 'A' },
      { email: 'creator@b.test', role: 'creator', organization: 'B' },
    ])) as [string, string, string, string];
    const organizationB = (await request(server, 'GET', '/api/me', { token: otherCreator })).body.organization_id as number;
    const register = async (body: Record<string, unknown>): Promise<number> => {
      const created = await request(server, 'POST', '/api/mcp-servers', { token: systemAdmin, body });
      expect(created.status, created.text).toBe(201);
      return created.body.id as number;
    };
    ownServer = await register({ name: 'Library', url: 'https://library.example.edu/mcp' });
    otherServer = await register({ name: 'Elsewhere', url: 'https://b.example.edu/mcp', organization_id: organizationB });
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it("saves the owner's assistant naming their organization's server, and an admin of that organization may change it", async () => {
    const created = await save(owner, ownServer);
    expect(created.status, created.text).toBe(201);
    expect(created.body.metadata.tools[1].config).toEqual({ server_id: ownServer, tools: ['search_catalogue'] });
    const changed = await request(server, 'PATCH', `/api/assistants/${created.body.id}`, {
      token: admin,
      body: { name: 'Catalogue helper', metadata: metadataWith(ownServer) },
    });
    expect(changed.status, changed.text).toBe(200);
  });

  it('refuses a server of another organization, or none, with 400 worded alike', async () => {
    expectRefusedServer(await save(owner, otherServer), otherServer);
    expectRefusedServer(await save(owner, 2_147_483_647), 2_147_483_647);
    // Another organization's creator cannot borrow organization A's server either.
    expectRefusedServer(await save(otherCreator, ownServer), ownServer);
    // A disabled entry is one toggle away from running: it is checked too.
    const disabled = metadataWith(otherServer);
    (disabled.tools as Array<Record<string, unknown>>)[1]!.enabled = false;
    const response = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: { name: 'Librarian', metadata: disabled },
    });
    expectRefusedServer(response, otherServer);
  });

  it("checks an update as the assistant's owner, even when the system admin of another organization saves it", async () => {
    const plain = await request(server, 'POST', '/api/assistants', {
      token: otherCreator,
      body: { name: 'Plain', metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] } },
    });
    expect(plain.status, plain.text).toBe(201);
    // The system admin's own organization is A, but the assistant's owner is in B.
    const patched = await request(server, 'PATCH', `/api/assistants/${plain.body.id}`, {
      token: systemAdmin,
      body: { metadata: metadataWith(ownServer) },
    });
    expectRefusedServer(patched, ownServer);
    const mine = await request(server, 'PATCH', `/api/assistants/${plain.body.id}`, {
      token: systemAdmin,
      body: { metadata: metadataWith(otherServer) },
    });
    expect(mine.status, mine.text).toBe(200);
  });

  it('refuses the same on import, and shows it as a blocking problem in the dry run', async () => {
    const document = {
      name: 'Imported librarian',
      description: '',
      system_prompt: 'Help.',
      prompt_template: '',
      metadata: JSON.stringify(metadataWith(otherServer)),
      RAG_collections: '',
      RAG_Top_k: 3,
      merino_export_version: 1,
    };
    const imported = await request(server, 'POST', '/api/assistants/import', { token: owner, body: document });
    expect(imported.status, imported.text).toBe(400);
    expect(imported.body.error.message).toContain(`names MCP server ${otherServer}`);
    const preview = await request(server, 'POST', '/api/assistants/import?dry_run=true', { token: owner, body: document });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.problems).toContainEqual(
      expect.objectContaining({ path: SERVER_ID_PATH, code: 'invalid_metadata', blocking: true }),
    );
  });

  it('refuses learners (403) and anonymous callers (401) before looking at the servers', async () => {
    const asLearner = await save(learner, ownServer);
    expect(asLearner.status, asLearner.text).toBe(403);
    const anonymous = await save(undefined, ownServer);
    expect(anonymous.status, anonymous.text).toBe(401);
  });

  it.each([
    ['a string', '1 OR 1=1'],
    ['a negative id', -1],
    ['zero', 0],
    ['a fraction', 1.5],
    ['a number past any id', 1e20],
    ['null', null],
    ['an object', { $ne: null }],
  ])('answers a hostile server_id (%s) with a 400 naming the entry', async (_name, value) => {
    const response = await save(owner, value);
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.param ?? '').toContain('metadata.tools[1]');
    expect(response.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('saves 50 assistants naming the server at once', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => save(owner, ownServer)));
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 201));
  });
});
