/**
 * Proves the MCP server's optional sessions: an `initialize` opens one, kept in the store (only its
 * id's hash) so that a second Merino process over the same database serves it too; its GET stream
 * sends `notifications/tools/list_changed` and `prompts/list_changed` when the caller's assistants
 * change, whichever process made the change; DELETE ends it and its stream; an expired session, a
 * session presented by another credential and a made-up id all get 404; requests without a session
 * are still served statelessly; a credential keeps at most MCP_SESSIONS_PER_CREDENTIAL_MAX; a web
 * page from a foreign origin gets 403 (DNS rebinding), and 50 sessions opened at once are distinct.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/auth/tokens.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const ENVIRONMENT = {
  MCP_LIST_CHANGED_POLL_MS: '100',
  MCP_SESSIONS_PER_CREDENTIAL_MAX: '5',
  CORS_ORIGINS: 'https://inspector.example.org',
};
const WAIT_MILLISECONDS = 5_000;
const ACCEPT_BOTH = 'application/json, text/event-stream';
const METADATA = { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'merino-test', version: '1.0.0' } },
};
const LIST_TOOLS = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

async function eventually(condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MILLISECONDS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the condition never became true');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(TEST_DIALECTS)('MCP sessions on %s', (dialect) => {
  let first: TestServer;
  let second: TestServer;
  let creator: CreatedUser;
  let learner: CreatedUser;
  let otherCreatorToken: string;
  const clients: Client[] = [];

  async function connect(server: TestServer, token: string, sessionId?: string): Promise<Client> {
    const client = new Client({ name: 'merino-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      ...(sessionId !== undefined && { sessionId }),
    });
    // With a session id the SDK reconnects to that session instead of initializing a new one.
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function openSession(server: TestServer, token: string): Promise<string> {
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: ACCEPT_BOTH },
      body: JSON.stringify(INITIALIZE),
    });
    await response.text();
    expect(response.status).toBe(200);
    const sessionId = response.headers.get('mcp-session-id');
    expect(sessionId).toMatch(/^mcs_[A-Za-z0-9_-]{43}$/);
    return sessionId!;
  }

  function post(server: TestServer, token: string, body: unknown, headers: Record<string, string> = {}) {
    return request(server, 'POST', '/mcp', {
      token,
      body,
      headers: { accept: ACCEPT_BOTH, 'mcp-protocol-version': '2025-06-18', ...headers },
    });
  }

  async function createAssistant(server: TestServer, token: string, name: string): Promise<number> {
    const response = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name, system_prompt: `You are ${name}.`, metadata: METADATA },
    });
    expect(response.status).toBe(201);
    return response.body.id as number;
  }

  beforeAll(async () => {
    first = await startTestServer(dialect, { environment: ENVIRONMENT });
    second = await startTestServer(dialect, { database: first.database, environment: ENVIRONMENT });
    const adminToken = await loginAsAdmin(first);
    creator = await createUser(first, adminToken, { email: 'session-creator@merino.test', role: 'creator' });
    learner = await createUser(first, adminToken, { email: 'session-learner@merino.test', role: 'learner' });
    [otherCreatorToken] = (await peopleInTwoOrganizations(first, adminToken, [
      { email: 'session-other@merino.test', role: 'creator', organization: 'B' },
    ])) as [string];
    await createAssistant(first, creator.token, 'Biology tutor');
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await possiblyUnset(second)?.close();
    await possiblyUnset(first)?.close();
  });

  it('opens a session at initialize, keeps only its hash in the store, and serves it from another process', async () => {
    const client = await connect(first, creator.token);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;
    expect(sessionId).toMatch(/^mcs_/);
    const rows = await first.store.db.selectFrom('mcp_sessions').selectAll().execute();
    expect(rows.some((row) => row.id_hash === hashToken(sessionId!))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(sessionId);
    const elsewhere = await connect(second, creator.token, sessionId);
    expect((await elsewhere.listTools()).tools.map((tool) => tool.title)).toContain('Biology tutor');
  });

  it('announces changed tools and prompts on the session stream, whichever process made the change', async () => {
    const client = await connect(first, learner.token);
    const announced: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => void announced.push(notification.method));
    client.setNotificationHandler(PromptListChangedNotificationSchema, (notification) => void announced.push(notification.method));
    expect((await client.listTools()).tools).toEqual([]);
    const chemistry = await createAssistant(second, creator.token, 'Chemistry tutor');
    // Another person's new assistant changes nothing the learner sees: nothing is announced.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(announced).toEqual([]);
    await request(second, 'PUT', `/api/assistants/${chemistry}/shares`, { token: creator.token, body: { user_emails: [learner.email] } });
    await eventually(() => announced.length === 2);
    expect(announced.sort()).toEqual(['notifications/prompts/list_changed', 'notifications/tools/list_changed']);
    expect((await client.listTools()).tools.map((tool) => tool.title)).toEqual(['Chemistry tutor']);
    await request(second, 'PUT', `/api/assistants/${chemistry}/shares`, { token: creator.token, body: { user_emails: [] } });
    await eventually(() => announced.length === 4);
    expect((await client.listTools()).tools).toEqual([]);
  });

  it('ends a session and its stream on DELETE, after which its id gets 404', async () => {
    const sessionId = await openSession(first, creator.token);
    const stream = await fetch(`${first.baseUrl}/mcp`, {
      headers: { authorization: `Bearer ${creator.token}`, accept: 'text/event-stream', 'mcp-session-id': sessionId },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const ended = stream.text();
    const deleted = await request(second, 'DELETE', '/mcp', { token: creator.token, headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(204);
    await expect(ended).resolves.toContain(': listening for list changes');
    expect((await post(first, creator.token, LIST_TOOLS, { 'mcp-session-id': sessionId })).status).toBe(404);
    expect((await request(first, 'DELETE', '/mcp', { token: creator.token, headers: { 'mcp-session-id': sessionId } })).status).toBe(404);
  });

  it('gives a session presented by another credential, an expired one or a made-up one nothing but 404', async () => {
    const sessionId = await openSession(first, creator.token);
    for (const token of [otherCreatorToken, learner.token]) {
      const stolen = await post(first, token, LIST_TOOLS, { 'mcp-session-id': sessionId });
      expect(stolen.status).toBe(404);
      expect(stolen.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/No such MCP session/) } });
      expect(JSON.stringify(stolen.body)).not.toContain('Biology');
      const streamed = await request(first, 'GET', '/mcp', {
        token,
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
      });
      expect(streamed.status).toBe(404);
      expect((await request(first, 'DELETE', '/mcp', { token, headers: { 'mcp-session-id': sessionId } })).status).toBe(404);
    }
    // The owner's session survived the attempts.
    expect((await post(first, creator.token, LIST_TOOLS, { 'mcp-session-id': sessionId })).status).toBe(200);
    await first.store.db
      .updateTable('mcp_sessions')
      .set({ expires_at: new Date(Date.now() - 1_000).toISOString() })
      .where('id_hash', '=', hashToken(sessionId))
      .execute();
    expect((await post(first, creator.token, LIST_TOOLS, { 'mcp-session-id': sessionId })).status).toBe(404);
    for (const madeUp of ['mcs_made-up', 'x'.repeat(4_000), "' or 1=1 --"])
      expect((await post(first, creator.token, LIST_TOOLS, { 'mcp-session-id': madeUp })).status).toBe(404);
  });

  it('still serves requests that carry no session, and opens no stream for them', async () => {
    const listed = await post(first, creator.token, LIST_TOOLS);
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('Biology tutor');
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    expect((await request(first, 'GET', '/mcp', { token: creator.token, headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect((await request(first, 'DELETE', '/mcp', { token: creator.token })).status).toBe(400);
  });

  it('keeps at most MCP_SESSIONS_PER_CREDENTIAL_MAX sessions per credential, ending the least recently used', async () => {
    const key = (await request(first, 'POST', '/api/api-keys', { token: creator.token, body: { name: 'sessions' } })).body.key as string;
    const sessions: string[] = [];
    for (let index = 0; index < 6; index += 1) sessions.push(await openSession(first, key));
    expect((await post(first, key, LIST_TOOLS, { 'mcp-session-id': sessions[0]! })).status).toBe(404);
    for (const sessionId of sessions.slice(1))
      expect((await post(first, key, LIST_TOOLS, { 'mcp-session-id': sessionId })).status).toBe(200);
  });

  it('refuses web pages from foreign origins with 403 and serves allowed ones', async () => {
    const foreign = await post(first, creator.token, LIST_TOOLS, { origin: 'http://evil.example.com' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/evil\.example\.com/) } });
    expect((await post(first, creator.token, LIST_TOOLS, { origin: 'https://inspector.example.org' })).status).toBe(200);
    // A loopback page reaching a Merino on loopback is the same machine: a local inspector.
    expect((await post(first, creator.token, LIST_TOOLS, { origin: 'http://localhost:6274' })).status).toBe(200);
    expect((await post(first, creator.token, LIST_TOOLS, { origin: 'null' })).status).toBe(403);
  });

  it('opens 50 distinct sessions at once', async () => {
    const sessionIds = await Promise.all(Array.from({ length: 50 }, () => openSession(first, learner.token)));
    expect(new Set(sessionIds).size).toBe(50);
  });
});
