/**
 * Proves function calling over real HTTP on both dialects with the official OpenAI client, the
 * fake OpenAI and Ollama servers scripted to call tools: search_knowledge_base and list_documents
 * run as the assistant owner, their results go back to the model, and the answer comes back
 * streamed (with a status chunk per call) and not; an unknown tool, broken JSON and a model that
 * repeats one call forever get clear tool errors and the request ends within its bounds, which
 * the verbose trace records without argument values.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const KREBS = 'The Krebs cycle takes place in the matrix of the mitochondria.';
const ITERATIONS = 3;

function toolMessages(recorded: RecordedRequest | undefined): string[] {
  return ((recorded?.body?.messages ?? []) as Array<{ role: string; content: string }>)
    .filter((message) => message.role === 'tool')
    .map((message) => message.content);
}

describe.each(TEST_DIALECTS)('function calling through the official client on %s', (dialect) => {
  let openaiFake: FakeOpenAiServer;
  let ollamaFake: FakeOllamaServer;
  let server: TestServer;
  let token: string;
  let client: OpenAI;
  let knowledgeBase: number;

  async function createAssistant(metadata: Record<string, unknown>): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: `Tutor ${Math.random()}`,
        system_prompt: 'You are a biology tutor.',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          verbose: true,
          tools: [
            { type: 'search_knowledge_base', config: { collections: [String(knowledgeBase)], top_k: 2 } },
            { type: 'list_documents', config: { collections: [String(knowledgeBase)] } },
          ],
          ...metadata,
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    return `lamb_assistant.${created.body.id}`;
  }

  const chatRequests = () => openaiFake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));

  beforeAll(async () => {
    openaiFake = await startFakeOpenAiServer();
    ollamaFake = await startFakeOllamaServer();
    server = await startTestServer(dialect, {
      environment: {
        INGESTION_POLL_MS: '20',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: openaiFake.baseUrl,
        OLLAMA_BASE_URL: ollamaFake.baseUrl,
        TOOL_LOOP_ITERATIONS: String(ITERATIONS),
      },
    });
    token = await loginAsAdmin(server);
    client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Biology' } })).body.id;
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token,
      body: { documents: [{ text: KREBS, metadata: { filename: 'respiration.md' } }] },
    });
    for (const { job_id } of queued.body.documents)
      expect((await waitForJob(server, token, knowledgeBase, job_id)).status).toBe('completed');
  });

  beforeEach(() => {
    openaiFake.reset();
    ollamaFake.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(openaiFake)?.close();
    await possiblyUnset(ollamaFake)?.close();
  });

  it('searches the knowledge base when the model asks, then answers (not streamed), with the passage as source', async () => {
    openaiFake.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'search_knowledge_base', arguments: '{"query":"Krebs cycle location"}' }] },
      { text: 'In the mitochondrial matrix.' },
    );
    const model = await createAssistant({});
    const answer = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Where does the Krebs cycle happen?' }],
    });
    expect(answer.choices[0]!.message.content).toBe('In the mitochondrial matrix.');
    const [first, second] = chatRequests();
    expect(first!.body.tools.map((tool: any) => tool.function.name)).toEqual(['search_knowledge_base', 'list_documents']);
    expect(toolMessages(second)[0]).toContain(KREBS);
    expect(toolMessages(second)[0]).toContain('[1] (respiration.md)');
    const sources = (answer as unknown as { sources: any[] }).sources;
    expect(sources).toEqual([
      expect.objectContaining({ title: 'respiration.md', tool: 'search_knowledge_base', function: 'search_knowledge_base' }),
    ]);
  });

  it('streams a status chunk per call and the final answer as it arrives', async () => {
    openaiFake.enqueue(
      {
        toolCalls: [
          { id: 'call_a', name: 'list_documents', arguments: '{}' },
          { id: 'call_b', name: 'search_knowledge_base', arguments: '{"query":"mitochondria"}' },
        ],
      },
      { chunks: ['The ', 'matrix.'] },
    );
    const model = await createAssistant({});
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'What do you have on respiration?' }] }),
    });
    const lines = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)));
    const statuses = lines.filter((line) => line.status).map((line) => `${line.status.state} ${line.status.message}`);
    expect(statuses).toEqual(
      expect.arrayContaining([
        'running calling list_documents',
        'done calling list_documents',
        'running calling search_knowledge_base',
        'done calling search_knowledge_base',
      ]),
    );
    const text = lines.flatMap((line) => line.choices?.[0]?.delta?.content ?? []).join('');
    expect(text).toBe('The matrix.');
    const listed = JSON.parse(toolMessages(chatRequests()[1])[0]!);
    expect(listed.matching).toBe(1);
    expect(listed.documents[0]).toMatchObject({
      knowledge_base: String(knowledgeBase),
      title: 'respiration.md',
      type: 'text/markdown',
      chunks: 1,
      status: 'completed',
    });

    openaiFake.enqueue({ text: 'Plain answer.' });
    const streamedByClient = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'again' }] });
    let streamedText = '';
    for await (const chunk of streamedByClient) streamedText += chunk.choices[0]?.delta.content ?? '';
    expect(streamedText).toBe('Plain answer.');
  });

  it('answers an unknown tool and broken JSON with clear tool errors and still finishes', async () => {
    openaiFake.enqueue(
      {
        toolCalls: [
          { id: 'call_x', name: 'drop_database', arguments: '{}' },
          { id: 'call_y', name: 'search_knowledge_base', arguments: '{"query": "krebs"' },
        ],
      },
      { text: 'Sorry, I could not use my tools.' },
    );
    const model = await createAssistant({});
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toBe('Sorry, I could not use my tools.');
    const results = toolMessages(chatRequests()[1]);
    expect(results[0]).toBe('Error: unknown tool "drop_database"; the available tools are: search_knowledge_base, list_documents');
    expect(results[1]).toMatch(/^Error: invalid arguments: not valid JSON/);
  });

  it('ends a model that repeats one call forever within TOOL_LOOP_ITERATIONS rounds and records it in the trace', async () => {
    openaiFake.setResponder((recorded) =>
      Array.isArray(recorded.body.tools)
        ? { toolCalls: [{ id: `call_${Math.random()}`, name: 'search_knowledge_base', arguments: '{"query":"secret learner question"}' }] }
        : { text: 'Here is what I found.' },
    );
    const model = await createAssistant({});
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'loop' }] });
    expect(answer.choices[0]!.message.content).toBe('Here is what I found.');
    expect(chatRequests()).toHaveLength(ITERATIONS + 1);
    expect(chatRequests().at(-1)!.body.tools).toBeUndefined();
    expect(toolMessages(chatRequests().at(-1)).at(-1)).toContain('refused: this exact call');
    const traceId = (answer as unknown as { trace_id?: string }).trace_id;
    expect(traceId).toBeDefined();
    const trace = await request(server, 'GET', `/api/traces/${traceId}`, { token });
    expect(trace.status).toBe(200);
    expect(trace.body).toMatchObject({ rounds: ITERATIONS + 1, stoppedBy: 'iterations' });
    expect(trace.body.toolCalls).toHaveLength(ITERATIONS);
    expect(JSON.stringify(trace.body)).not.toContain('secret learner question');
  });

  it('lets an assistant lower its own round limit with metadata.tool_loop', async () => {
    openaiFake.setResponder((recorded) =>
      Array.isArray(recorded.body.tools)
        ? { toolCalls: [{ id: `c${Math.random()}`, name: 'list_documents', arguments: `{"collection":"${knowledgeBase}"}` }] }
        : { text: 'done' },
    );
    const model = await createAssistant({ tool_loop: { max_iterations: 1 } });
    await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'loop' }] });
    expect(chatRequests()).toHaveLength(2);
  });

  it('runs tools with the ollama connector from its native tool_calls', async () => {
    ollamaFake.enqueue({ toolCalls: [{ name: 'search_knowledge_base', arguments: { query: 'Krebs' } }] }, { text: 'Mitochondria.' });
    const model = await createAssistant({ connector: 'ollama', llm: 'qwen3' });
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Where?' }] });
    expect(answer.choices[0]!.message.content).toBe('Mitochondria.');
    const chats = ollamaFake.requests.filter((recorded) => recorded.path === '/api/chat');
    expect(chats[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['search_knowledge_base', 'list_documents']);
    const sentBack = chats[1]!.body.messages as Array<{ role: string; content: string; tool_calls?: unknown }>;
    expect(sentBack.find((message) => message.tool_calls)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ function: { name: 'search_knowledge_base', arguments: { query: 'Krebs' } } }],
    });
    expect(sentBack.find((message) => message.role === 'tool')?.content).toContain(KREBS);
  });
});
