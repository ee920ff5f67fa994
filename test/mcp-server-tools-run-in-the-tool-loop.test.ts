/**
 * Proves that an organization's MCP server, registered by its admin, serves an assistant's tools
 * through the real tool loop (fake model, the SDK-built MCP test server, real HTTP on both
 * dialects): the chosen tools are offered as `mcp_<server_id>_<tool>` with the schemas the server
 * lists; a call reaches the server with the header templates filled for the person chatting; a
 * slow tool times out, an `isError` answer and an unreachable server become tool errors the model
 * reads, and the chat still answers; a tool whose schema is not valid JSON Schema, or that the
 * server does not list, is not offered and a call to it is told why; the identical-call guard
 * holds, and a call streams its status step. The header's secret value appears in no API answer and no log line.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeMcpServer, type FakeMcpServer } from './fakes/fake-mcp-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, toolResultsIn } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const SECRET = 'mcp-secret-token-7f3a9c2e41d8';

describe.each(TEST_DIALECTS)('MCP server tools in the tool loop on %s', (dialect) => {
  let model: FakeOpenAiServer;
  let mcp: FakeMcpServer;
  let server: TestServer;
  let adminToken: string;
  let learner: CreatedUser;
  let serverId: number;
  let assistantModel: string;
  const answers: string[] = [];

  const chatRequests = () => model.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
  const ask = async (question: string) => {
    const client = new OpenAI({ apiKey: learner.token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: question }] });
    answers.push(JSON.stringify(answer));
    return answer;
  };

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    mcp = await startFakeMcpServer();
    mcp.slowMilliseconds = 3_000;
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        TOOL_CALL_TIMEOUT_MS: '800',
      },
    });
    adminToken = await loginAsAdmin(server);
    learner = await createUser(server, adminToken, { email: `learner-${dialect}@school.test`, role: 'learner' });
    const registered = await request(server, 'POST', '/api/mcp-servers', {
      token: adminToken,
      body: {
        name: 'Grading tools',
        url: mcp.url,
        headers: [
          { name: 'Authorization', value: `Bearer ${SECRET}` },
          { name: 'X-Merino-User', value: '{{USER_ID}} {{USER_EMAIL}}' },
        ],
      },
    });
    expect(registered.status, registered.text).toBe(201);
    answers.push(registered.text);
    serverId = registered.body.id;
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: 'Grader',
        system_prompt: 'Grade.',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tool_loop: { max_identical_calls: 1 },
          tools: [
            { type: 'mcp', enabled: true, config: { server_id: serverId, tools: ['add', 'slow', 'fail', 'broken_schema', 'missing'] } },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: adminToken, body: { published: true } });
    assistantModel = `lamb_assistant.${created.body.id}`;
  }, 120_000);

  beforeEach(() => {
    model.reset();
    mcp.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(model)?.close();
    await possiblyUnset(mcp)?.close();
  });

  it('offers the chosen tools under namespaced names with their schemas, and calls them as the person chatting', async () => {
    model.enqueue({ toolCalls: [{ id: 'a1', name: `mcp_${serverId}_add`, arguments: '{"a":2,"b":40}' }] }, { text: 'It is 42.' });
    const answer = await ask('What is 2 + 40?');
    expect(answer.choices[0]!.message.content).toBe('It is 42.');
    const offered = chatRequests()[0]!.body.tools as Array<{ function: { name: string; parameters: Record<string, unknown> } }>;
    expect(offered.map((tool) => tool.function.name)).toEqual([`mcp_${serverId}_add`, `mcp_${serverId}_slow`, `mcp_${serverId}_fail`]);
    expect(offered[0]!.function.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] });
    expect(offered[0]!.function.parameters).not.toHaveProperty('$schema');
    expect(toolResultsIn(chatRequests()[1])).toEqual(['42']);
    expect(mcp.calls).toEqual([{ name: 'add', arguments: { a: 2, b: 40 } }]);
    const callHeaders = mcp.headers.at(-1)!;
    expect(callHeaders.authorization).toBe(`Bearer ${SECRET}`);
    expect(callHeaders['x-merino-user']).toBe(`${learner.id} learner-${dialect}@school.test`);
  });

  it('streams a status step while a call runs', async () => {
    model.enqueue({ toolCalls: [{ id: 'a2', name: `mcp_${serverId}_add`, arguments: '{"a":1,"b":2}' }] }, { text: 'Three.' });
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${learner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: assistantModel, stream: true, messages: [{ role: 'user', content: '1 + 2?' }] }),
    });
    const text = await response.text();
    answers.push(text);
    const statuses = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)))
      .filter((chunk) => chunk.status)
      .map((chunk) => `${chunk.status.state}: ${chunk.status.message}`);
    expect(statuses).toEqual([`running: calling a tool of MCP server ${serverId}`, `done: calling a tool of MCP server ${serverId}`]);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('turns a timeout, an isError answer and a refused repeat into tool errors the model reads', async () => {
    model.enqueue(
      {
        toolCalls: [
          { id: 's1', name: `mcp_${serverId}_slow`, arguments: '{}' },
          { id: 'f1', name: `mcp_${serverId}_fail`, arguments: '{}' },
          { id: 'b1', name: `mcp_${serverId}_broken_schema`, arguments: '{}' },
          { id: 'm1', name: `mcp_${serverId}_missing`, arguments: '{}' },
        ],
      },
      { toolCalls: [{ id: 'f2', name: `mcp_${serverId}_fail`, arguments: '{}' }] },
      { text: 'The tools failed; sorry.' },
    );
    const answer = await ask('Grade my essay.');
    expect(answer.choices[0]!.message.content).toBe('The tools failed; sorry.');
    const [slow, fail, broken, missing] = toolResultsIn(chatRequests()[1]);
    expect(slow).toBe('Error: timed out after 800 ms');
    expect(fail).toBe('Error: the MCP tool "fail" reported an error: the grading database is down');
    expect(broken).toMatch(/^Error: "mcp_\d+_broken_schema" is not available: its input schema is not a valid JSON Schema/);
    expect(missing).toMatch(/is not available: the MCP server "Grading tools" does not list this tool now/);
    expect(toolResultsIn(chatRequests()[2]).at(-1)).toMatch(/^Error: refused: this exact call/);
  });

  it('answers without the tools when the server cannot be reached, and the studio says why', async () => {
    const moved = await request(server, 'PATCH', `/api/mcp-servers/${serverId}`, {
      token: adminToken,
      body: { url: 'http://127.0.0.1:9/mcp' },
    });
    expect(moved.status, moved.text).toBe(200);
    answers.push(moved.text);
    try {
      model.enqueue({ text: 'No tools today.' });
      const answer = await ask('1 + 1?');
      expect(answer.choices[0]!.message.content).toBe('No tools today.');
      expect(chatRequests()).toHaveLength(1);
      expect(chatRequests()[0]!.body.tools).toBeUndefined();
      const tools = await request(server, 'GET', `/api/mcp-servers/${serverId}/tools`, { token: adminToken });
      expect(tools.body).toMatchObject({ tools: [], error: expect.stringMatching(/^The MCP server "Grading tools" could not be reached/) });
    } finally {
      await request(server, 'PATCH', `/api/mcp-servers/${serverId}`, { token: adminToken, body: { url: mcp.url } });
    }
  });

  it('never shows the header value in an API answer or a log line', async () => {
    const listed = await request(server, 'GET', '/api/mcp-servers', { token: adminToken });
    const tools = await request(server, 'GET', `/api/mcp-servers/${serverId}/tools`, { token: adminToken });
    expect(tools.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['add', 'slow', 'fail', 'broken_schema']);
    expect(listed.body.items[0].headers).toEqual([
      { name: 'Authorization', has_value: true },
      { name: 'X-Merino-User', has_value: true },
    ]);
    for (const text of [...answers, listed.text, tools.text, ...server.logLines]) expect(text).not.toContain(SECRET);
    expect(server.logLines.length).toBeGreaterThan(0);
  });
});
