/**
 * Proves that a stopping server (SIGTERM, the graceful stop of src/main.ts) does not wait for ever
 * on an MCP tool call whose model never finishes: once SHUTDOWN_STREAM_GRACE_MS has run out, the
 * call's model request is aborted and the client gets a tool error saying the server stopped, its
 * session's notification stream ends, and the process exits cleanly.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from './support/test-server.js';

const PROVIDER_KEY = 'sk-provider-key-for-the-mcp-drain-test';

describe.each(TEST_DIALECTS)('MCP calls on a server stopping on %s', (dialect) => {
  let database: TestDatabase;
  let provider: FakeOpenAiServer;
  let server: ServerProcess;
  let client: Client | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    provider = await startFakeOpenAiServer({ apiKey: PROVIDER_KEY });
    server = await startServerProcess(database, {
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_API_KEY: PROVIDER_KEY,
      SHUTDOWN_DRAIN_DELAY_MS: '300',
      SHUTDOWN_STREAM_GRACE_MS: '700',
      SHUTDOWN_TIMEOUT_MS: '15000',
    });
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await possiblyUnset(server)?.kill();
    await possiblyUnset(provider)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('aborts a running call with a tool error, ends the session stream, and exits', async () => {
    const token = (await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body
      .token as string;
    const assistant = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'Tutor', system_prompt: 'Answer.', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    expect(assistant.status, assistant.text).toBe(201);
    client = new Client({ name: 'merino-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      // The stopped server is gone: the client must not keep trying to reopen its stream.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 },
    });
    await client.connect(transport);
    const [tool] = (await client.listTools()).tools;
    provider.enqueue({ chunks: ['Thinking'], hangAfterChunks: 1 });
    const call = client.callTool({ name: tool!.name, arguments: { question: 'Explain rivers slowly.' } }) as Promise<CallToolResult>;
    while (provider.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const exited = new Promise<number | null>((resolve) => server.child.on('exit', (code) => resolve(code)));
    const stoppedAt = Date.now();
    server.child.kill('SIGTERM');

    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/server is stopping/) }]);
    // Not before the drain delay and the stream grace: calls that finish in time are left to finish.
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(900);
    // The provider sees the aborted request's socket close on its own event loop, which can come
    // after the client has read the tool error.
    await expect.poll(() => provider.disconnectedRequests()).toBe(1);
    expect(await exited).toBe(0);
  }, 60_000);
});
