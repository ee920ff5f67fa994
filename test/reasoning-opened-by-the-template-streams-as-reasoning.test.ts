/**
 * The assistant setting `reasoning_opened` over real HTTP with the official client: when the chat
 * template opens reasoning, the model's output starts inside it and only `</think>` appears. With
 * `always` (or `auto` for a model family known to do this), everything up to `</think>` streams as
 * `reasoning_content`, never as the answer, and a call written inside that reasoning is not run;
 * `never` leaves the output as written; an unknown value is refused at save time, naming the field.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const REASONING =
  'The learner asks where. I could call <tool_call>{"name": "get_weather", "arguments": {"location": "Paris"}}</tool_call> but no.';
const ANSWER = 'In the mitochondrial matrix.';

function pieces(text: string, size = 4): string[] {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}

describe('reasoning opened by the chat template', () => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let client: OpenAI;

  async function createAssistant(metadata: Record<string, unknown>): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: `Reasoning tutor ${Math.random()}`,
        metadata: { assistant_type: 'multi_tool', connector: 'openai', tools: [{ type: 'weather' }], ...metadata },
      },
    });
    expect(created.status, created.text).toBe(201);
    return `lamb_assistant.${created.body.id}`;
  }

  async function streamed(model: string): Promise<{ content: string; reasoning: string }> {
    const stream = await client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Where is the Krebs cycle?' }],
    });
    let content = '';
    let reasoning = '';
    for await (const chunk of stream) {
      // Merino streams reasoning in `reasoning_content`, which the client's types do not name.
      const delta: { content?: string | null; reasoning_content?: string } | undefined = chunk.choices[0]?.delta;
      content += delta?.content ?? '';
      reasoning += delta?.reasoning_content ?? '';
    }
    return { content, reasoning };
  }

  const chatRequests = () => fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer('sqlite', { environment: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'local' } });
    token = await loginAsAdmin(server);
    client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  });

  beforeEach(() => fake.reset());

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('always: streams everything before </think> as reasoning_content and runs no call written there', async () => {
    fake.enqueue({ chunks: pieces(`${REASONING}</think>${ANSWER}`) });
    const result = await streamed(await createAssistant({ llm: 'qwen3.5-9b', reasoning_opened: 'always' }));
    expect(result).toEqual({ content: ANSWER, reasoning: REASONING });
    expect(chatRequests()).toHaveLength(1);
  });

  it('auto: a model family whose template always opens reasoning is read as always', async () => {
    fake.enqueue({ chunks: pieces(`${REASONING}</think>${ANSWER}`) });
    const result = await streamed(await createAssistant({ llm: 'QwQ-32B' }));
    expect(result).toEqual({ content: ANSWER, reasoning: REASONING });
    expect(chatRequests()).toHaveLength(1);
  });

  it('never: the output is the answer as written, </think> included', async () => {
    const output = `Step one.</think>${ANSWER}`;
    fake.enqueue({ chunks: pieces(output) });
    const result = await streamed(await createAssistant({ llm: 'QwQ-32B', reasoning_opened: 'never' }));
    expect(result).toEqual({ content: output, reasoning: '' });
  });

  it('refuses an unknown reasoning_opened at save time, naming the field', async () => {
    const refused = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'Bad reasoning', metadata: { reasoning_opened: 'sometimes' } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('metadata.reasoning_opened');
  });
});
