/**
 * The bounds of assistants used as tools, each a setting: ASSISTANT_TOOL_CALLS_MAX refuses calls
 * past the limit in one request, ASSISTANT_TOOL_RESULT_CHARS_MAX cuts a long answer with a
 * marker, ASSISTANT_TOOL_TIMEOUT_MS gives a slow target a "timed out" result, and
 * ASSISTANT_TOOL_TOTAL_MS stops the request's assistant calls once together they take too long.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, toolResultsIn } from './fakes/fake-openai-server.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const CALLS_MAXIMUM = 2;
const RESULT_MAXIMUM = 120;
// Long enough that a quick target never hits it on a loaded machine; the slow one waits four times as long.
const TIMEOUT_MILLISECONDS = 1_000;

describe.each<{ bound: string; environment: Record<string, string>; expected: string }>([
  {
    bound: 'per call',
    environment: { ASSISTANT_TOOL_TIMEOUT_MS: String(TIMEOUT_MILLISECONDS) },
    expected: `Error: timed out after ${TIMEOUT_MILLISECONDS} ms`,
  },
  {
    bound: 'in total',
    environment: { ASSISTANT_TOOL_TIMEOUT_MS: '30000', ASSISTANT_TOOL_TOTAL_MS: String(TIMEOUT_MILLISECONDS) },
    expected: `Error: Calls to other assistants took longer than ${TIMEOUT_MILLISECONDS} ms in this request.`,
  },
])('assistant-tool bounds ($bound time limit)', ({ environment, expected }) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let echo: number;
  let slow: number;

  const chatRequests = () => fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));

  async function createAssistant(body: Record<string, unknown>): Promise<number> {
    const created = await request(server, 'POST', '/api/assistants', { token, body: { name: `Assistant ${Math.random()}`, ...body } });
    expect(created.status, created.text).toBe(201);
    return created.body.id;
  }

  async function orchestrate(calls: Array<{ name: string; query: string }>): Promise<string[]> {
    const orchestrator = await createAssistant({
      metadata: {
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: 'orchestrator-model',
        tools: [
          { type: 'assistant', assistant_id: echo, name: 'echo' },
          { type: 'assistant', assistant_id: slow, name: 'slow' },
        ],
      },
    });
    fake.setResponder((recorded) => {
      if (recorded.body.model === 'slow-model') return { text: 'late', delayMs: 4 * TIMEOUT_MILLISECONDS };
      const isOrchestratorFirstRound =
        recorded.body.model === 'orchestrator-model' &&
        !recorded.body.messages.some((message: { role: string }) => message.role === 'tool');
      if (isOrchestratorFirstRound)
        return {
          toolCalls: calls.map((call, index) => ({ id: `c${index}`, name: call.name, arguments: JSON.stringify({ query: call.query }) })),
        };
      return { text: 'done' };
    });
    const client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: `lamb_assistant.${orchestrator}`, messages: [{ role: 'user', content: 'go' }] });
    return toolResultsIn(
      chatRequests()
        .filter((recorded) => recorded.body.model === 'orchestrator-model')
        .at(-1),
    );
  }

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', {
      environment: {
        OPENAI_BASE_URL: fake.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        ASSISTANT_TOOL_CALLS_MAX: String(CALLS_MAXIMUM),
        ASSISTANT_TOOL_RESULT_CHARS_MAX: String(RESULT_MAXIMUM),
        ...environment,
      },
    });
    token = await loginAsAdmin(server);
    echo = await createAssistant({ metadata: { connector: 'bypass', llm: 'simple-bypass' } });
    slow = await createAssistant({ metadata: { connector: 'openai', llm: 'slow-model' } });
  });

  beforeEach(() => fake.reset());

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it(`refuses assistant calls past ASSISTANT_TOOL_CALLS_MAX (${CALLS_MAXIMUM}) in one request`, async () => {
    const results = await orchestrate([
      { name: 'echo', query: 'one' },
      { name: 'echo', query: 'two' },
      { name: 'echo', query: 'three' },
    ]);
    expect(results.filter((result) => result.startsWith('Error: This request already called 2 assistants'))).toHaveLength(1);
    expect(results.filter((result) => !result.startsWith('Error:'))).toHaveLength(2);
  });

  it(`cuts an answer longer than ASSISTANT_TOOL_RESULT_CHARS_MAX (${RESULT_MAXIMUM}) with a marker`, async () => {
    const [result] = await orchestrate([{ name: 'echo', query: 'x'.repeat(500) }]);
    expect(result).toMatch(
      new RegExp(`^x{${RESULT_MAXIMUM}}\\n\\[truncated: the answer had \\d+ characters; only the first ${RESULT_MAXIMUM} are shown\\]$`),
    );
  });

  it('stops a target slower than the time limit with a clear result', async () => {
    const [result] = await orchestrate([{ name: 'slow', query: 'take your time' }]);
    expect(result).toBe(expected);
  });
});
