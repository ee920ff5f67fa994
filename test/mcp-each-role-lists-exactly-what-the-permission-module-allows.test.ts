/**
 * Proves with the official MCP client, over loopback, that each role lists exactly the tools and
 * prompts the permission module allows it, and never more than the same person gets through the
 * REST API: the system admin every organization's assistants, an organization admin all of its
 * organization's, an editor its own, those shared with it and the published ones, a learner only
 * the published ones (and no prompt), someone of another organization only theirs. The tools
 * equal the caller's `/v1/models`; the prompts equal the assistants whose system prompt
 * `GET /api/assistants/{id}` shows them. Also: a quota refusal comes back as a tool error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { insertOrganization } from '../src/store/organizations-repository.js';

const METADATA = { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] };
type Role = 'system admin' | 'organization admin' | 'editor' | 'learner' | 'other organization';
type AssistantName = 'Draft' | 'Shared' | 'Published' | 'Foreign';

const EXPECTED: Record<Role, { tools: AssistantName[]; prompts: AssistantName[] }> = {
  'system admin': { tools: ['Draft', 'Foreign', 'Published', 'Shared'], prompts: ['Draft', 'Foreign', 'Published', 'Shared'] },
  'organization admin': { tools: ['Draft', 'Published', 'Shared'], prompts: ['Draft', 'Published', 'Shared'] },
  editor: { tools: ['Published', 'Shared'], prompts: ['Shared'] },
  learner: { tools: ['Published'], prompts: [] },
  'other organization': { tools: ['Foreign'], prompts: ['Foreign'] },
};

describe.each(TEST_DIALECTS)('what each role lists over MCP on %s', (dialect) => {
  let fakeOpenAi: FakeOpenAiServer;
  let server: TestServer;
  const tokens = {} as Record<Role, string>;
  const assistantIds = {} as Record<AssistantName, number>;
  let organizationB: number;
  let adminToken: string;
  const clients: Client[] = [];

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'merino-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  function nameOf(assistantId: number): AssistantName {
    const entry = Object.entries(assistantIds).find(([, id]) => id === assistantId);
    if (entry === undefined) throw new Error(`assistant ${assistantId} is not one of this suite's`);
    return entry[0] as AssistantName;
  }

  const idOfToolName = (name: string): number => Number(/^assistant_(\d+)/.exec(name)?.[1]);

  beforeAll(async () => {
    fakeOpenAi = await startFakeOpenAiServer();
    server = await startTestServer(dialect, { environment: { OPENAI_BASE_URL: fakeOpenAi.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    adminToken = await loginAsAdmin(server);
    tokens['system admin'] = adminToken;
    const organizationA = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
    organizationB = await insertOrganization(server.store.db, `mcp-roles-b-${dialect}`, 'Organization B');
    const person = async (email: string, role: 'admin' | 'creator' | 'learner', organization: number) =>
      createUser(server, adminToken, { email, role, organization_id: organization });
    const owner = await person('owner@merino.test', 'creator', organizationA);
    tokens['organization admin'] = (await person('org-admin@merino.test', 'admin', organizationA)).token;
    const editor = await person('editor@merino.test', 'creator', organizationA);
    tokens.editor = editor.token;
    tokens.learner = (await person('learner@merino.test', 'learner', organizationA)).token;
    tokens['other organization'] = (await person('other@merino.test', 'creator', organizationB)).token;
    const create = async (token: string, name: AssistantName): Promise<void> => {
      const response = await request(server, 'POST', '/api/assistants', {
        token,
        body: { name, description: `The ${name} assistant.`, system_prompt: `You are ${name}.`, metadata: METADATA },
      });
      expect(response.status, response.text).toBe(201);
      assistantIds[name] = response.body.id as number;
    };
    await create(owner.token, 'Draft');
    await create(owner.token, 'Shared');
    await create(owner.token, 'Published');
    await create(tokens['other organization'], 'Foreign');
    const shared = await request(server, 'PUT', `/api/assistants/${assistantIds.Shared}/shares`, {
      token: owner.token,
      body: { user_emails: [editor.email] },
    });
    expect(shared.status, shared.text).toBe(200);
    for (const [token, name] of [
      [owner.token, 'Published'],
      [tokens['other organization'], 'Foreign'],
    ] as const) {
      const published = await request(server, 'PUT', `/api/assistants/${assistantIds[name]}/publish`, { token, body: { published: true } });
      expect(published.status, published.text).toBe(200);
    }
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await possiblyUnset(server)?.close();
    await possiblyUnset(fakeOpenAi)?.close();
  });

  it.each(Object.keys(EXPECTED) as Role[])(
    'lists for the %s exactly the tools and prompts it may use, as the REST API does',
    async (role) => {
      const client = await connect(tokens[role]);
      const tools = (await client.listTools()).tools.map((tool) => nameOf(idOfToolName(tool.name))).sort();
      const prompts = (await client.listPrompts()).prompts.map((prompt) => nameOf(idOfToolName(prompt.name))).sort();
      expect({ tools, prompts }).toEqual(EXPECTED[role]);

      const models = await request(server, 'GET', '/v1/models', { token: tokens[role] });
      const chattable = (models.body.data as Array<{ id: string }>)
        .map((model) => Number(/^lamb_assistant\.(\d+)$/.exec(model.id)?.[1]))
        .filter((id) => Object.values(assistantIds).includes(id))
        .map(nameOf)
        .sort();
      expect(tools).toEqual(chattable);
      const readable: AssistantName[] = [];
      for (const [name, id] of Object.entries(assistantIds)) {
        const shown = await request(server, 'GET', `/api/assistants/${id}`, { token: tokens[role] });
        if (shown.status === 200 && typeof shown.body.system_prompt === 'string') readable.push(name as AssistantName);
      }
      expect(prompts).toEqual(readable.sort());
    },
  );

  it('answers a call refused by a quota with a tool error that says why', async () => {
    const limited = await request(server, 'PATCH', `/api/organizations/${organizationB}/settings`, {
      token: adminToken,
      body: { limits: { tokens_per_month: 1 } },
    });
    expect(limited.status, limited.text).toBe(200);
    fakeOpenAi.setResponder(() => ({ text: 'An answer.' }));
    const client = await connect(tokens['other organization']);
    const name = (await client.listTools()).tools[0]!.name;
    let result: CallToolResult | undefined;
    // The month's first request may pass (nothing used yet); the next is refused.
    for (let attempt = 0; attempt < 3 && result?.isError !== true; attempt += 1)
      result = (await client.callTool({ name, arguments: { question: 'Hello?' } })) as CallToolResult;
    expect(result?.isError).toBe(true);
    const text = result?.content.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
    expect(text).toMatch(/limit|quota/i);
    expect(text).not.toMatch(/\bat \S+\.(ts|js):\d+/);
  });
});
