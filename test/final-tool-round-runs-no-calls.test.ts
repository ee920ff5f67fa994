/**
 * Proves over real HTTP, on SQLite and PostgreSQL, with the official client and the fake OpenAI
 * server, that the last model call of the tool loop (the one made without functions, after
 * TOOL_LOOP_ITERATIONS rounds) never runs a call the model still makes: neither a structured
 * `tool_calls` entry nor a call written as text. The request ends after that call with the text
 * the model wrote, no further model call is made, and the trace shows the calls of the offered
 * rounds only, with `stoppedBy: "iterations"`.
 *
 * Why this file exists: dropping the `if (offer)` guard in src/pipeline/tool-loop/tool-loop.ts, which runs
 * calls in the round where no tools are offered, failed no test before.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest, type ScriptedReply } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const ITERATIONS = 2;
const FINAL_TEXT = 'Here is my final answer.';
/** What a third model call would answer; the learner must never see it. */
const UNEXPECTED_TEXT = 'A third model call was made.';
const HERMES_CALL = '<tool_call>\n{"name":"list_documents","arguments":{}}\n</tool_call>';

function toolMessages(recorded: RecordedRequest | undefined): unknown[] {
  return ((recorded?.body?.messages ?? []) as Array<{ role: string }>).filter((message) => message.role === 'tool');
}

describe.each(TEST_DIALECTS)('the final tool-loop round on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let client: OpenAI;
  let model: string;
  let roundsWithTools = 0;

  const chatRequests = () => fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));

  /** Offered rounds: one call to list_documents each (with a fresh id); the final round: `finalReply`; any later call: UNEXPECTED_TEXT. */
  function script(finalReply: ScriptedReply): void {
    roundsWithTools = 0;
    let finalRounds = 0;
    fake.setResponder((recorded) => {
      if (Array.isArray(recorded.body.tools)) {
        roundsWithTools += 1;
        return { toolCalls: [{ id: `call_offered_${roundsWithTools}`, name: 'list_documents', arguments: '{}' }] };
      }
      finalRounds += 1;
      return finalRounds === 1 ? finalReply : { text: UNEXPECTED_TEXT };
    });
  }

  async function traceOf(traceId: string | undefined): Promise<{ rounds: number; stoppedBy?: string; toolCalls: unknown[] }> {
    expect(traceId).toEqual(expect.any(String));
    const trace = await request(server, 'GET', `/api/traces/${traceId}`, { token });
    expect(trace.status, trace.text).toBe(200);
    return trace.body;
  }

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, {
      environment: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test', TOOL_LOOP_ITERATIONS: String(ITERATIONS) },
    });
    token = await loginAsAdmin(server);
    client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Biology' } })).body.id as number;
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Looping tutor',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          verbose: true,
          tools: [{ type: 'list_documents', config: { collections: [String(knowledgeBase)] } }],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    model = `lamb_assistant.${created.body.id}`;
  });

  beforeEach(() => {
    fake.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('does not run a structured call the model makes in the final round, and makes no further model call', async () => {
    script({ text: FINAL_TEXT, toolCalls: [{ id: 'call_final', name: 'list_documents', arguments: '{}' }] });
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'What documents are there?' }] });
    expect(answer.choices[0]!.message.content).toBe(FINAL_TEXT);
    expect(answer.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(chatRequests()).toHaveLength(ITERATIONS + 1);
    expect(chatRequests().at(-1)!.body.tools).toBeUndefined();
    expect(toolMessages(chatRequests().at(-1))).toHaveLength(ITERATIONS);
    const trace = await traceOf((answer as unknown as { trace_id?: string }).trace_id);
    expect(trace).toMatchObject({ rounds: ITERATIONS + 1, stoppedBy: 'iterations' });
    expect(trace.toolCalls).toHaveLength(ITERATIONS);
  });

  it('does not run a structured call made in the final round of a stream either: one running status per offered round only', async () => {
    script({ chunks: ['Here is ', 'my final answer.'], toolCalls: [{ id: 'call_final', name: 'list_documents', arguments: '{}' }] });
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'What documents are there?' }] }),
    });
    expect(response.status).toBe(200);
    const chunks = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)));
    const running = chunks.filter((chunk) => chunk.status?.state === 'running');
    expect(running).toHaveLength(ITERATIONS);
    expect(chunks.flatMap((chunk) => chunk.choices?.[0]?.delta?.content ?? []).join('')).toBe(FINAL_TEXT);
    expect(chunks.some((chunk) => chunk.choices?.[0]?.delta?.tool_calls !== undefined)).toBe(false);
    expect(chatRequests()).toHaveLength(ITERATIONS + 1);
  });

  it('does not read a call written as text in the final round as a call', async () => {
    script({ text: `${FINAL_TEXT} ${HERMES_CALL}` });
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'What documents are there?' }] });
    expect(answer.choices[0]!.message.content).not.toContain(UNEXPECTED_TEXT);
    expect(answer.choices[0]!.message.content).toContain(FINAL_TEXT);
    expect(chatRequests()).toHaveLength(ITERATIONS + 1);
    const trace = await traceOf((answer as unknown as { trace_id?: string }).trace_id);
    expect(trace).toMatchObject({ rounds: ITERATIONS + 1 });
    expect(trace.toolCalls).toHaveLength(ITERATIONS);
  });
});
