/**
 * Proves the OpenAI-compatible API end to end: the official `openai` client, pointed at Merino
 * with an API key, lists models and gets streamed and non-streamed answers from classic and
 * multi-tool assistants served through the openai and ollama connectors (fake providers that
 * speak the real wire formats); upstream failures reach the client with real statuses.
 */
import OpenAI, { InternalServerError, NotFoundError, RateLimitError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PROVIDER_KEY = 'sk-provider-canary-0123456789abcdef';
const UPSTREAM_TIMEOUT_MILLISECONDS = 1_500;
/** How long a test waits for something the server does in the background (the upstream abort). */
const BACKGROUND_WAIT_MILLISECONDS = 5_000;

async function eventually(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + BACKGROUND_WAIT_MILLISECONDS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never became true');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(TEST_DIALECTS)('chat completions on %s', (dialect) => {
  let fakeOpenAi: FakeOpenAiServer;
  let fakeOllama: FakeOllamaServer;
  let server: TestServer;
  let client: OpenAI;
  let merinoKey: string;
  const models = { classic: '', multiTool: '', ollama: '' };

  beforeAll(async () => {
    fakeOpenAi = await startFakeOpenAiServer({ apiKey: PROVIDER_KEY });
    fakeOllama = await startFakeOllamaServer();
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_BASE_URL: fakeOpenAi.baseUrl,
        OPENAI_API_KEY: PROVIDER_KEY,
        OLLAMA_BASE_URL: fakeOllama.baseUrl,
        UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MILLISECONDS),
      },
    });
    const adminToken = await loginAsAdmin(server);
    merinoKey = (await request(server, 'POST', '/api/api-keys', { token: adminToken, body: { name: 'sdk' } })).body.key;
    const create = async (body: Record<string, unknown>) =>
      `lamb_assistant.${(await request(server, 'POST', '/api/assistants', { token: adminToken, body })).body.id}`;
    models.classic = await create({
      name: 'Classic tutor',
      system_prompt: 'You are a classic tutor.',
      prompt_template: 'Question: {user_input}',
      metadata: JSON.stringify({ connector: 'openai', llm: 'gpt-4o-mini', prompt_processor: 'simple_augment', rag_processor: 'no_rag' }),
    });
    models.multiTool = await create({
      name: 'Multi tutor',
      system_prompt: 'You are a multi-tool tutor.',
      prompt_template: 'Ask: {user_input}',
      metadata: {
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: 'gpt-4.1-mini',
        tools: [{ type: 'no_rag', enabled: true, config: {} }],
      },
    });
    models.ollama = await create({ name: 'Local tutor', metadata: { connector: 'ollama', llm: 'llama3.1' } });
    client = new OpenAI({ apiKey: merinoKey, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
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

  it('lists the assistants the key may chat with as models', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining([models.classic, models.multiTool, models.ollama]));
  });

  it('answers a classic assistant without streaming, with the prompt built from its template', async () => {
    fakeOpenAi.enqueue({ text: 'Photosynthesis turns light into sugar.', usage: { prompt_tokens: 21, completion_tokens: 7 } });
    const completion = await client.chat.completions.create({
      model: models.classic,
      messages: [{ role: 'user', content: 'What is photosynthesis?' }],
    });
    expect(completion.model).toBe(models.classic);
    expect(completion.choices[0]?.message.content).toBe('Photosynthesis turns light into sugar.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 7, total_tokens: 28 });
    const upstream = fakeOpenAi.requests.at(-1)!;
    expect(upstream.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(upstream.body.model).toBe('gpt-4o-mini');
    expect(upstream.body.messages).toEqual([
      { role: 'system', content: 'You are a classic tutor.' },
      { role: 'user', content: 'Question: \n\nWhat is photosynthesis?\n\n' },
    ]);
  });

  it('streams a multi-tool assistant, ending with the usage chunk', async () => {
    fakeOpenAi.enqueue({ chunks: ['Cells ', 'divide ', 'by mitosis.'], usage: { prompt_tokens: 30, completion_tokens: 5 } });
    const stream = await client.chat.completions.create({
      model: models.multiTool,
      stream: true,
      messages: [{ role: 'user', content: 'How do cells divide?' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
      expect(chunk.model).toBe(models.multiTool);
    }
    expect(text).toBe('Cells divide by mitosis.');
    expect(usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 });
    expect(fakeOpenAi.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Ask: \n\nHow do cells divide?\n\n' });
  });

  it('passes the standard generation parameters on to the provider', async () => {
    // The SDK marks max_tokens, seed and user deprecated, but clients still send them and Merino passes them on.
    /* eslint-disable @typescript-eslint/no-deprecated */
    await client.chat.completions.create({
      model: models.classic,
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 55,
      stop: ['END'],
      seed: 42,
      response_format: { type: 'json_object' },
      user: 'learner-7',
    });
    /* eslint-enable @typescript-eslint/no-deprecated */
    expect(fakeOpenAi.requests.at(-1)!.body).toMatchObject({
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 55,
      stop: ['END'],
      seed: 42,
      response_format: { type: 'json_object' },
      user: 'learner-7',
    });
  });

  it('answers through the native Ollama connector, streamed and not', async () => {
    fakeOllama.enqueue({ chunks: ['Local ', 'answer.'], usage: { prompt_eval_count: 11, eval_count: 4 } });
    const completion = await client.chat.completions.create({ model: models.ollama, messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.choices[0]?.message.content).toBe('Local answer.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 });
    fakeOllama.enqueue({ chunks: ['Streamed ', 'locally.'] });
    let text = '';
    for await (const chunk of await client.chat.completions.create({
      model: models.ollama,
      stream: true,
      messages: [{ role: 'user', content: 'again' }],
    })) {
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('Streamed locally.');
    expect(fakeOllama.requests.at(-1)!.body).toMatchObject({ model: 'llama3.1', stream: true });
  });

  it('answers 404 model_not_found for an unknown model', async () => {
    const failure = await client.chat.completions
      .create({ model: 'lamb_assistant.999999', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotFoundError);
    expect((failure as NotFoundError).code).toBe('model_not_found');
  });

  it('reports a provider rate limit as 429 and a provider failure as 502', async () => {
    fakeOpenAi.enqueue({ status: 429 });
    const limited = await client.chat.completions
      .create({ model: models.classic, messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(RateLimitError);
    fakeOpenAi.enqueue({ status: 500 });
    const failed = await client.chat.completions
      .create({ model: models.classic, messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(InternalServerError);
    expect((failed as InternalServerError).status).toBe(502);
    expect((failed as InternalServerError).code).toBe('upstream_error');
  });

  it('answers 504 when the provider takes longer than UPSTREAM_TIMEOUT_MS', async () => {
    fakeOpenAi.enqueue({ delayMs: UPSTREAM_TIMEOUT_MILLISECONDS * 3 });
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token: merinoKey,
      body: { model: models.classic, messages: [{ role: 'user', content: 'x' }] },
    });
    expect(response.status).toBe(504);
    expect(response.body.error.code).toBe('upstream_timeout');
  });

  it('ends a stream that the provider drops midway with an error chunk and no [DONE]', async () => {
    fakeOpenAi.enqueue({ chunks: ['one ', 'two ', 'three ', 'four'], dropAfterChunks: 3 });
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token: merinoKey,
      body: { model: models.classic, stream: true, messages: [{ role: 'user', content: 'x' }] },
    });
    expect(response.status).toBe(200);
    const events = response.text
      .split('\n\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6));
    expect(events).not.toContain('[DONE]');
    const last = JSON.parse(events.at(-1)!);
    expect(last.error).toMatchObject({ type: 'server_error' });
    expect(
      events
        .slice(0, -1)
        .map((event) => JSON.parse(event).choices[0]?.delta?.content ?? '')
        .join(''),
    ).toBe('one two ');
  });

  it('aborts the provider request as soon as the client disconnects', async () => {
    fakeOpenAi.enqueue({ chunks: Array.from({ length: 50 }, (_, index) => `piece ${index} `), chunkDelayMs: 100 });
    const controller = new AbortController();
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merinoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: models.classic, stream: true, messages: [{ role: 'user', content: 'long answer please' }] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await eventually(() => fakeOpenAi.disconnectedRequests() === 1);
  });

  it("runs the same pipeline through LAMB's /lamb/v1/completions?assistant=<id>", async () => {
    const assistantId = models.classic.slice('lamb_assistant.'.length);
    fakeOpenAi.enqueue({ text: 'LAMB-style answer.' });
    const answer = await request(server, 'POST', `/lamb/v1/completions?assistant=${assistantId}`, {
      token: merinoKey,
      body: { messages: [{ role: 'user', content: 'hello LAMB' }] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      object: 'chat.completion',
      model: models.classic,
      choices: [{ message: { content: 'LAMB-style answer.' } }],
    });
    expect(fakeOpenAi.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Question: \n\nhello LAMB\n\n' });
    const missing = await request(server, 'POST', '/lamb/v1/completions', {
      token: merinoKey,
      body: { messages: [{ role: 'user', content: 'x' }] },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('assistant');
    const unknown = await request(server, 'POST', '/lamb/v1/completions?assistant=999999', {
      token: merinoKey,
      body: { messages: [{ role: 'user', content: 'x' }] },
    });
    expect(unknown.status).toBe(404);
  });

  it('never writes the provider key into a log line', () => {
    expect(server.logLines.filter((line) => line.includes(PROVIDER_KEY))).toEqual([]);
  });
});
