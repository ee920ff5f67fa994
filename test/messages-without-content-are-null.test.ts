/**
 * Proves, through the official `openai` client on both dialects, that a message without
 * `content` means `null` as in OpenAI's API: a user turn `{"role":"user"}` and an assistant turn
 * with only `tool_calls` are answered 200 (streamed: text, then `[DONE]`, no error chunk) through
 * both connectors, instead of the 500 `internal_error` they once gave. The provider receives the
 * assistant turn with `content: null` and its calls, and an empty user turn as empty text.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

/** What the SDK's types forbid but its API accepts: messages with no `content` key at all. */
const CONTENTLESS_HISTORY = [
  { role: 'user', content: 'What is the weather in Oslo?' },
  {
    role: 'assistant',
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'Cloudy, 4 °C.' },
  { role: 'user' },
] as unknown as OpenAI.ChatCompletionMessageParam[];

describe.each(TEST_DIALECTS)('messages without content on %s', (dialect) => {
  let fakeOpenAi: FakeOpenAiServer;
  let fakeOllama: FakeOllamaServer;
  let server: TestServer;
  let client: OpenAI;
  let key: string;
  const models = { openai: '', ollama: '' };

  beforeAll(async () => {
    fakeOpenAi = await startFakeOpenAiServer();
    fakeOllama = await startFakeOllamaServer();
    server = await startTestServer(dialect, {
      environment: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fakeOpenAi.baseUrl, OLLAMA_BASE_URL: fakeOllama.baseUrl },
    });
    const token = await loginAsAdmin(server);
    key = (await request(server, 'POST', '/api/api-keys', { token, body: { name: 'sdk' } })).body.key as string;
    const create = async (metadata: Record<string, unknown>) =>
      `lamb_assistant.${(await request(server, 'POST', '/api/assistants', { token, body: { name: `tutor ${String(metadata.connector)}`, system_prompt: 'You are a tutor.', metadata } })).body.id}`;
    models.openai = await create({ connector: 'openai', llm: 'gpt-4o-mini' });
    models.ollama = await create({ connector: 'ollama', llm: 'llama3.1' });
    client = new OpenAI({ apiKey: key, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fakeOpenAi)?.close();
    await possiblyUnset(fakeOllama)?.close();
  });

  beforeEach(() => {
    fakeOpenAi.reset();
    fakeOllama.reset();
  });

  it('answers a lone {"role":"user"} with 200, sending the provider an empty user turn', async () => {
    fakeOpenAi.enqueue({ text: 'Ask me anything.' });
    const completion = await client.chat.completions.create({
      model: models.openai,
      messages: [{ role: 'user' } as unknown as OpenAI.ChatCompletionMessageParam],
    });
    expect(completion.choices[0]?.message.content).toBe('Ask me anything.');
    expect(fakeOpenAi.requests.at(-1)!.body.messages).toEqual([
      { role: 'system', content: 'You are a tutor.' },
      { role: 'user', content: '' },
    ]);
  });

  it('answers a history with a tool_calls-only assistant turn, passing content null and the calls on', async () => {
    fakeOpenAi.enqueue({ text: 'It is cloudy.' });
    const completion = await client.chat.completions.create({ model: models.openai, messages: CONTENTLESS_HISTORY });
    expect(completion.choices[0]?.message.content).toBe('It is cloudy.');
    const sent = fakeOpenAi.requests.at(-1)!.body.messages;
    expect(sent[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } }],
    });
    expect(sent.at(-1)).toEqual({ role: 'user', content: '' });
  });

  it('streams the same history to the end with [DONE] and no error chunk', async () => {
    fakeOpenAi.enqueue({ chunks: ['It is ', 'cloudy.'] });
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token: key,
      body: { model: models.openai, stream: true, messages: CONTENTLESS_HISTORY },
    });
    expect(response.status).toBe(200);
    const events = response.text
      .split('\n\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.filter((event) => event.includes('"error"'))).toEqual([]);
    let text = '';
    for await (const chunk of await client.chat.completions.create({ model: models.openai, stream: true, messages: CONTENTLESS_HISTORY }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(`echo: `);
  });

  it('answers the same history through the native Ollama connector', async () => {
    fakeOllama.enqueue({ text: 'Cloudy in Oslo.' });
    const completion = await client.chat.completions.create({ model: models.ollama, messages: CONTENTLESS_HISTORY });
    expect(completion.choices[0]?.message.content).toBe('Cloudy in Oslo.');
    const sent = fakeOllama.requests.at(-1)!.body.messages;
    expect(sent[2]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ function: { name: 'get_weather', arguments: { location: 'Oslo' } } }],
    });
    expect(sent.at(-1)).toEqual({ role: 'user', content: '' });
  });
});
