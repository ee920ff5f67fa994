/**
 * Proves, over real HTTP on both dialects, that no saved assistant can end the server process:
 * a classic `rag_processor` naming a function-only tool (weather, moodle_courses,
 * moodle_assignments) is refused on save with a 400 naming `metadata.rag_processor`, and a row
 * saved before that check (written into the store directly, as an older server would have) still
 * answers 200, after which nothing rejects unhandled: the process outlives TOOL_TIMEOUT_MS and
 * keeps answering. It once died TOOL_TIMEOUT_MS after such a chat, from a timeout promise no one
 * awaited.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const TOOL_TIMEOUT_MILLISECONDS = 150;
/** Long past the tool timeout, so a dangling timeout promise would have rejected by then. */
const OUTLIVE_MILLISECONDS = TOOL_TIMEOUT_MILLISECONDS * 4;
const FUNCTION_ONLY_TOOLS = ['weather', 'moodle_courses', 'moodle_assignments'];

describe.each(TEST_DIALECTS)('a saved assistant cannot end the process on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  const unhandled: unknown[] = [];
  const recordUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  beforeAll(async () => {
    process.on('unhandledRejection', recordUnhandled);
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, {
      environment: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseUrl, TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MILLISECONDS) },
    });
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    process.off('unhandledRejection', recordUnhandled);
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  beforeEach(() => {
    fake.reset();
    unhandled.length = 0;
  });

  it.each(FUNCTION_ONLY_TOOLS)('refuses rag_processor "%s" on save with a 400 naming metadata.rag_processor', async (toolName) => {
    const response = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'k', metadata: { connector: 'openai', llm: 'm', rag_processor: toolName } },
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_metadata', param: 'metadata.rag_processor' });
    expect(response.body.error.message).toContain(`"${toolName}"`);
  });

  it.each(FUNCTION_ONLY_TOOLS)('answers a row saved earlier with rag_processor "%s" and outlives the tool timeout', async (toolName) => {
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: `legacy ${toolName}`, metadata: { connector: 'openai', llm: 'm', rag_processor: 'no_rag' } },
    });
    expect(created.status, created.text).toBe(201);
    const row = await server.store.db
      .selectFrom('assistants')
      .select('metadata')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    const legacy = { ...JSON.parse(row.metadata), rag_processor: toolName };
    await server.store.db
      .updateTable('assistants')
      .set({ metadata: JSON.stringify(legacy) })
      .where('id', '=', created.body.id)
      .execute();

    fake.enqueue({ text: 'Still here.' });
    const chat = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(chat.status, chat.text).toBe(200);
    expect(chat.body.choices[0].message.content).toBe('Still here.');
    // The function-only tool has nothing to run before the model; the model got the plain question.
    expect(fake.requests.at(-1)!.body.messages.at(-1).content).toContain('hello');

    await new Promise((resolve) => setTimeout(resolve, OUTLIVE_MILLISECONDS));
    expect(unhandled).toEqual([]);
    const health = await request(server, 'GET', '/healthz');
    expect(health.status).toBe(200);
  });
});
