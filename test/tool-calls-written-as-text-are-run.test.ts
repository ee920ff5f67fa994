/**
 * Seed 004 over real HTTP with the official client: when the fake model writes its tool call as
 * text, in any of the formats local models use, streamed in small pieces, Merino runs the call,
 * gives the result back and streams the final answer; none of the call's syntax reaches the
 * learner, while the words before it do. `tool_call_format: "native"` turns text parsing off.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, toolResultsIn } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const KREBS = 'The Krebs cycle takes place in the matrix of the mitochondria.';
const JSON_CALL = '{"name":"search_knowledge_base","arguments":{"query":"Krebs"}}';
const DEEPSEEK = {
  begin: '<｜tool▁calls▁begin｜>',
  callBegin: '<｜tool▁call▁begin｜>',
  separator: '<｜tool▁sep｜>',
  callEnd: '<｜tool▁call▁end｜>',
  end: '<｜tool▁calls▁end｜>',
};

/** One call to search_knowledge_base({query: "Krebs"}) in each format, as the model family writes it. */
const CALLS_AS_TEXT: Record<string, string> = {
  xml_function: '<function=search_knowledge_base>\n<parameter=query>\nKrebs\n</parameter>\n</function>',
  hermes: `<tool_call>\n${JSON_CALL}\n</tool_call>`,
  json_array: `[${JSON_CALL}]`,
  llama3_json: '<|python_tag|>{"name": "search_knowledge_base", "parameters": {"query": "Krebs"}}',
  pythonic: '[search_knowledge_base(query="Krebs")]',
  mistral_v3: `[TOOL_CALLS][${JSON_CALL}]`,
  mistral_v11: '[TOOL_CALLS]search_knowledge_base[ARGS]{"query": "Krebs"}',
  deepseek_v3: `${DEEPSEEK.begin}${DEEPSEEK.callBegin}function${DEEPSEEK.separator}search_knowledge_base\n\`\`\`json\n{"query": "Krebs"}\n\`\`\`${DEEPSEEK.callEnd}${DEEPSEEK.end}`,
  deepseek_v31: `${DEEPSEEK.begin}${DEEPSEEK.callBegin}search_knowledge_base${DEEPSEEK.separator}{"query": "Krebs"}${DEEPSEEK.callEnd}${DEEPSEEK.end}`,
  granite: `<|tool_call|>[${JSON_CALL}]`,
  tool_calls_tag: `<tool_calls>[${JSON_CALL}]</tool_calls>`,
  functools: `functools[${JSON_CALL}]`,
  glm: '<tool_call>search_knowledge_base\n<arg_key>query</arg_key>\n<arg_value>Krebs</arg_value>\n</tool_call>',
  kimi_k2:
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.search_knowledge_base:0<|tool_call_argument_begin|>{"query": "Krebs"}<|tool_call_end|><|tool_calls_section_end|>',
  harmony:
    '<|channel|>analysis<|message|>I should search the notes.<|end|><|start|>assistant<|channel|>commentary to=functions.search_knowledge_base <|constrain|>json<|message|>{"query": "Krebs"}<|call|>',
  gemma_tool_code: '```tool_code\nsearch_knowledge_base(query="Krebs")\n```',
  gemma_json: `\`\`\`json\n${JSON_CALL}\n\`\`\``,
  openai_json: `{"tool_calls": [${JSON_CALL}]}`,
  apertus: '<|tools_prefix|>[{"search_knowledge_base": {"query": "Krebs"}}]<|tools_suffix|>',
  internlm2: '<|action_start|><|plugin|>\n{"name": "search_knowledge_base", "parameters": {"query": "Krebs"}}<|action_end|>',
  granite_20b_fc: `<function_call> ${JSON_CALL}`,
  longcat: `<longcat_tool_call>${JSON_CALL}</longcat_tool_call>`,
  function_gemma: '<start_function_call>call:search_knowledge_base{query:<escape>Krebs<escape>}<end_function_call>',
  minimax_m2:
    '<minimax:tool_call>\n<invoke name="search_knowledge_base">\n<parameter name="query">Krebs</parameter>\n</invoke>\n</minimax:tool_call>',
  step3:
    '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="search_knowledge_base"><steptml:parameter name="query">Krebs</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
  hunyuan: `<answer>\n<tool_calls>[${JSON_CALL}]</tool_calls>\n</answer>`,
  functionary_v31: '<function=search_knowledge_base>{"query": "Krebs"}</function>',
  nemotron_v2: `<TOOLCALL>[${JSON_CALL}]</TOOLCALL>`,
};

const PREAMBLE = 'Let me look that up. ';

/** Splits text into pieces of a few characters, as a streaming server sends it. */
function pieces(text: string, size = 5): string[] {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}

describe('tool calls written as text', () => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let client: OpenAI;
  let knowledgeBase: number;

  async function createAssistant(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: `Local model tutor ${Math.random()}`,
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'qwen3-8b',
          tools: [{ type: 'search_knowledge_base', config: { collections: [String(knowledgeBase)] } }],
          ...extra,
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    return `lamb_assistant.${created.body.id}`;
  }

  const chatRequests = () => fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', {
      environment: { INGESTION_POLL_MS: '20', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'local' },
    });
    token = await loginAsAdmin(server);
    client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Biology' } })).body.id;
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token,
      body: { documents: [{ text: KREBS }] },
    });
    expect((await waitForJob(server, token, knowledgeBase, queued.body.documents[0].job_id)).status).toBe('completed');
  });

  beforeEach(() => fake.reset());

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it.each(Object.entries(CALLS_AS_TEXT))(
    'runs a %s call streamed in pieces and streams the answer, without the call syntax',
    async (_format, callText) => {
      fake.enqueue({ chunks: pieces(PREAMBLE + callText) }, { chunks: ['In the ', 'mitochondrial matrix.'] });
      const model = await createAssistant();
      const stream = await client.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'Where is the Krebs cycle?' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(`${PREAMBLE}In the mitochondrial matrix.`);
      expect(chatRequests()).toHaveLength(2);
      expect(toolResultsIn(chatRequests()[1])).toEqual([expect.stringContaining(KREBS)]);
    },
  );

  it('runs a text call in a non-streamed request too', async () => {
    fake.enqueue({ chunks: pieces(CALLS_AS_TEXT.hermes!) }, { text: 'Mitochondria.' });
    const model = await createAssistant();
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Where?' }] });
    expect(answer.choices[0]!.message.content).toBe('Mitochondria.');
    expect(toolResultsIn(chatRequests()[1])[0]).toContain(KREBS);
  });

  it('leaves prose that mentions a tag, and calls of tools the assistant does not offer, as text', async () => {
    const prose =
      'Models wrap calls in <tool_call> tags, e.g. <tool_call>{"name":"delete_everything","arguments":{}}</tool_call> — not today.';
    fake.enqueue({ chunks: pieces(prose) });
    const model = await createAssistant();
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Explain tool calls.' }] });
    expect(answer.choices[0]!.message.content).toBe(prose);
    expect(chatRequests()).toHaveLength(1);
  });

  it('moves reasoning out of the answer', async () => {
    fake.enqueue({ chunks: pieces('<think>The learner wants a place.</think>Mitochondria.') });
    const model = await createAssistant();
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Where?' }] });
    expect(answer.choices[0]!.message.content).toBe('Mitochondria.');
  });

  it('runs a Functionary v3.2 call, a format read only when the assistant names it', async () => {
    const callText = 'all\nLet me look that up.\n>>>search_knowledge_base\n{"query": "Krebs"}';
    fake.enqueue({ chunks: pieces(callText) }, { text: 'Mitochondria.' }, { chunks: pieces(callText) });
    const named = await createAssistant({ tool_call_format: 'functionary_v32' });
    const answer = await client.chat.completions.create({ model: named, messages: [{ role: 'user', content: 'Where?' }] });
    // The `all` header is gone; the words for the learner stay before the answer.
    expect(answer.choices[0]!.message.content).toBe('Let me look that up.\nMitochondria.');
    expect(toolResultsIn(chatRequests()[1])[0]).toContain(KREBS);
    // In auto, the same text is prose.
    const automatic = await createAssistant();
    const prose = await client.chat.completions.create({ model: automatic, messages: [{ role: 'user', content: 'Where?' }] });
    expect(prose.choices[0]!.message.content).toBe(callText);
  });

  it('reads no text calls for an assistant that asks for native calls only', async () => {
    fake.enqueue({ chunks: pieces(CALLS_AS_TEXT.hermes!) });
    const model = await createAssistant({ tool_call_format: 'native' });
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Where?' }] });
    expect(answer.choices[0]!.message.content).toBe(CALLS_AS_TEXT.hermes);
    expect(chatRequests()).toHaveLength(1);
  });

  it('refuses an unknown tool_call_format at save time, naming the field', async () => {
    const refused = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'Bad format', metadata: { tool_call_format: 'smoke_signals' } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('metadata.tool_call_format');
  });
});
