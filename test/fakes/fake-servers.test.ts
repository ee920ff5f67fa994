// Proves the fake providers speak the real wire formats: the OpenAI fake is driven through the
// official `openai` SDK (if the SDK accepts it, Merino's provider code will too), and the Ollama
// fake through plain fetch against the shapes Ollama documents.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.js';

const API_KEY = 'sk-test-fake-provider-key';
const MODEL = 'gpt-4o-mini';
const OLLAMA_MODEL = 'llama3.2:latest';
const POLL_INTERVAL_MS = 10;
const POLL_TIMEOUT_MS = 2_000;
/** Timers may fire a little early relative to Date.now(); this keeps delay assertions from flaking. */
const TIMER_TOLERANCE_MS = 10;

async function eventually(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + POLL_TIMEOUT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${POLL_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

describe('fake OpenAI server, through the official SDK', () => {
  let fake: FakeOpenAiServer;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAiServer({ apiKey: API_KEY });
    client = new OpenAI({ apiKey: API_KEY, baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  it('echoes the last user message by default, with usage and the requested model', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: [{ type: 'text', text: 'second question' }] },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe(MODEL);
    expect(Number.isInteger(completion.created)).toBe(true);
    expect(completion.created).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'echo: second question' });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
  });

  it('returns scripted non-stream text, finish reason and exact usage, and records the request', async () => {
    fake.enqueue({
      text: 'Photosynthesis turns light into sugar.',
      finishReason: 'length',
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    });
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'explain' }] });
    expect(completion.choices[0]?.message.content).toBe('Photosynthesis turns light into sugar.');
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });

    expect(fake.requests).toHaveLength(1);
    const recorded = fake.requests[0];
    expect(recorded?.method).toBe('POST');
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(recorded?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(recorded?.body).toMatchObject({ model: MODEL, messages: [{ role: 'user', content: 'explain' }] });
  });

  it('streams scripted chunks that reassemble into the text, ending with a usage chunk when include_usage is set', async () => {
    fake.enqueue({ chunks: ['Hel', 'lo, ', 'wor', 'ld'], usage: { prompt_tokens: 5, completion_tokens: 4 } });
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'greet' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    for (const chunk of chunks) expect([chunk.object, chunk.model]).toEqual(['chat.completion.chunk', MODEL]);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const contentDeltas = chunks
      .flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? ''))
      .filter((text) => text !== '');
    expect(contentDeltas).toEqual(['Hel', 'lo, ', 'wor', 'ld']);
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);

    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('splits plain text into several deltas and sends no usage chunk unless asked', async () => {
    fake.enqueue({ text: 'The mitochondria is the powerhouse of the cell.' });
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const contentDeltas = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').filter((text) => text !== '');
    expect(contentDeltas.length).toBeGreaterThanOrEqual(2);
    expect(contentDeltas.join('')).toBe('The mitochondria is the powerhouse of the cell.');
    expect(chunks.every((chunk) => chunk.choices.length === 1 && !('usage' in chunk))).toBe(true);
  });

  it('streams reasoning_content deltas before the content, as vLLM and DeepSeek do', async () => {
    fake.enqueue({ reasoning: ['Think ', 'first.'], text: 'Answer.' });
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true });
    const kinds: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as (Record<string, unknown> & { reasoning_content?: string }) | undefined;
      if (delta?.reasoning_content) kinds.push(`reasoning:${delta.reasoning_content}`);
      if (typeof delta?.content === 'string' && delta.content !== '') kinds.push(`content:${delta.content}`);
    }
    expect(kinds.slice(0, 2)).toEqual(['reasoning:Think ', 'reasoning:first.']);
    expect(kinds.slice(2).join('|').replaceAll('content:', '').replaceAll('|', '')).toBe('Answer.');
  });

  it('streams tool-call deltas that reassemble, per index, into the scripted calls', async () => {
    const scripted = [
      { id: 'call_weather', name: 'get_weather', arguments: '{"city":"Barcelona","unit":"celsius"}' },
      { id: 'call_time', name: 'get_time', arguments: '{"zone":"Europe/Madrid"}' },
    ];
    fake.enqueue({ toolCalls: scripted });
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true });

    const assembled = new Map<number, { id: string; name: string; arguments: string; fragments: number }>();
    let finishReason: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      finishReason = choice?.finish_reason ?? finishReason;
      for (const delta of choice?.delta.tool_calls ?? []) {
        const entry = assembled.get(delta.index) ?? { id: '', name: '', arguments: '', fragments: 0 };
        entry.id ||= delta.id ?? '';
        entry.name ||= delta.function?.name ?? '';
        if (delta.function?.arguments) {
          entry.arguments += delta.function.arguments;
          entry.fragments += 1;
        }
        assembled.set(delta.index, entry);
      }
    }
    expect(finishReason).toBe('tool_calls');
    expect([...assembled.keys()]).toEqual([0, 1]);
    for (const [index, call] of scripted.entries()) {
      expect(assembled.get(index)).toMatchObject({ id: call.id, name: call.name, arguments: call.arguments });
      expect(assembled.get(index)?.fragments).toBeGreaterThanOrEqual(2);
    }
  });

  it("satisfies the SDK's own stream accumulator, which validates every tool-call field", async () => {
    fake.enqueue({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"term":"osmosis"}' }] });
    const runner = client.chat.completions.stream({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"term":"osmosis"}' } },
    ]);
  });

  it('returns tool calls in message.tool_calls with null content when not streaming', async () => {
    fake.enqueue({ toolCalls: [{ id: 'call_9', name: 'lookup', arguments: '{}' }] });
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.choices[0]?.message.content).toBeNull();
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_9', type: 'function', function: { name: 'lookup', arguments: '{}' } },
    ]);
  });

  it('surfaces a scripted 429 as RateLimitError with the OpenAI error body and retry-after', async () => {
    fake.enqueue({ status: 429, errorMessage: 'Slow down, please.' });
    const failure = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    const error = failure as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.status).toBe(429);
    expect(error.message).toContain('Slow down, please.');
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.headers.get('retry-after')).toBe('1');
    expect(error.requestID).toMatch(/^req_/);
  });

  it('surfaces a scripted 500 as InternalServerError, also for streaming requests', async () => {
    fake.enqueue({ status: 500 }, { status: 500 });
    await expect(client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    );
    await expect(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true }),
    ).rejects.toBeInstanceOf(OpenAI.InternalServerError);
  });

  it('rejects a wrong API key with 401 invalid_api_key as AuthenticationError, without echoing the key', async () => {
    const wrongKey = 'sk-wrong-key-0123456789';
    const intruder = new OpenAI({ apiKey: wrongKey, baseURL: fake.baseUrl, maxRetries: 0 });
    const failure = await intruder.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((failure as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    expect((failure as Error).message).not.toContain(wrongKey);
    await expect(intruder.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('makes the SDK stream reject when the connection drops mid-stream', async () => {
    fake.enqueue({ text: 'this answer will be cut off', dropAfterChunks: 2 });
    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true });
    const received: string[] = [];
    const consume = async (): Promise<void> => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    };
    await expect(consume()).rejects.toThrow();
    expect(received).toHaveLength(2);
    expect(fake.disconnectedRequests()).toBe(0);
  });

  it('makes the SDK stream reject on a malformed SSE event', async () => {
    const quietClient = new OpenAI({ apiKey: API_KEY, baseURL: fake.baseUrl, maxRetries: 0, logLevel: 'off' });
    fake.enqueue({ text: 'abc', malformedAfterChunks: 1 });
    const stream = await quietClient.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true });
    const consume = async (): Promise<void> => {
      for await (const _chunk of stream) {
        // Reading is the point: the malformed event makes the iteration reject.
      }
    };
    await expect(consume()).rejects.toBeInstanceOf(SyntaxError);
  });

  it('counts a client abort in the middle of a stream as a disconnected request', async () => {
    fake.enqueue({ chunks: ['one', 'two', 'three', 'four'], chunkDelayMs: 200 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true },
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content === 'one') controller.abort();
    }
    await eventually(() => fake.disconnectedRequests() === 1);
  });

  it('counts a client abort while the fake is still delaying its headers as a disconnected request', async () => {
    fake.enqueue({ text: 'late', delayMs: 5_000 });
    const controller = new AbortController();
    const pending = client.chat.completions.create(
      { model: MODEL, messages: [{ role: 'user', content: 'x' }] },
      { signal: controller.signal },
    );
    await eventually(() => fake.requests.length === 1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await eventually(() => fake.disconnectedRequests() === 1);
  });

  it('waits delayMs before answering', async () => {
    const delayMs = 150;
    fake.enqueue({ text: 'patient', delayMs });
    const startedAt = Date.now();
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(delayMs - TIMER_TOLERANCE_MS);
    expect(completion.choices[0]?.message.content).toBe('patient');
  });

  it('serves the queue in order and then falls back to the responder', async () => {
    fake.enqueue({ text: 'first' }, { text: 'second' });
    fake.setResponder((request) => ({ text: `responder saw ${request.body.messages.length} message(s)` }));
    const answers: Array<string | null | undefined> = [];
    for (let round = 0; round < 3; round += 1) {
      const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] });
      answers.push(completion.choices[0]?.message.content);
    }
    expect(answers).toEqual(['first', 'second', 'responder saw 1 message(s)']);
  });

  it('returns deterministic unit-length embeddings, equal for equal inputs, in both float and base64 encodings', async () => {
    const viaBase64 = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['cell', 'atom', 'cell'] });
    expect(viaBase64.object).toBe('list');
    expect(viaBase64.data.map((item) => item.index)).toEqual([0, 1, 2]);
    const [cell, atom, cellAgain] = viaBase64.data.map((item) => Array.from(item.embedding));
    expect(cell).toHaveLength(64);
    expect(cellAgain).toEqual(cell);
    expect(atom).not.toEqual(cell);
    const norm = Math.sqrt((cell ?? []).reduce((sum, value) => sum + value * value, 0));
    expect(norm).toBeCloseTo(1, 5);
    expect(viaBase64.usage.prompt_tokens).toBeGreaterThan(0);

    const viaFloat = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'cell', encoding_format: 'float' });
    expect(viaFloat.data[0]?.embedding).toEqual(cell);
  });

  it('lists models through models.list()', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      expect(model.object).toBe('model');
      ids.push(model.id);
    }
    expect(ids).toContain(MODEL);
    expect((await client.models.retrieve(MODEL)).id).toBe(MODEL);
  });

  it('answers unknown paths with 404 and non-JSON bodies with 400, both in the OpenAI error shape', async () => {
    const unknown = await fetch(`${fake.baseUrl}/nothing-here`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { message: 'Invalid URL (GET /v1/nothing-here)', type: 'invalid_request_error', param: null, code: null },
    });

    const garbled = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{"model": ',
    });
    expect(garbled.status).toBe(400);
    const body = (await garbled.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null, code: null });
    expect(fake.requests.at(-1)?.body).toBe('{"model": ');
  });

  it('frames the stream as SSE data lines ending in [DONE], with the event-stream content type', async () => {
    fake.enqueue({ text: 'hi' });
    const response = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text()).split('\n\n');
    expect(events.pop()).toBe('');
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.every((event) => event.startsWith('data: '))).toBe(true);
  });
});

describe('fake Ollama server, through plain fetch', () => {
  let fake: FakeOllamaServer;

  beforeAll(async () => {
    fake = await startFakeOllamaServer();
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());

  async function chat(body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
    return fetch(`${fake.baseUrl}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal !== undefined && { signal }),
    });
  }

  function parseLines(text: string): Array<Record<string, any>> {
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, any>);
  }

  it('streams NDJSON by default, ending with a done line that carries the counters', async () => {
    const response = await chat({ model: OLLAMA_MODEL, messages: [{ role: 'user', content: 'hello there' }] });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = parseLines(await response.text());
    const partials = lines.slice(0, -1);
    const final = lines.at(-1);

    expect(partials.length).toBeGreaterThanOrEqual(2);
    for (const line of partials) {
      expect(line).toMatchObject({ model: OLLAMA_MODEL, message: { role: 'assistant' }, done: false });
      expect(Number.isNaN(Date.parse(line.created_at))).toBe(false);
    }
    expect(partials.map((line) => line.message.content).join('')).toBe('echo: hello there');
    expect(final).toMatchObject({ model: OLLAMA_MODEL, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' });
    for (const counter of ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration']) {
      expect(Number.isInteger(final?.[counter])).toBe(true);
    }
  });

  it('streams scripted chunks, a tool-call line with object arguments, and scripted counters', async () => {
    fake.enqueue({
      chunks: ['Let me ', 'check.'],
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage: { prompt_eval_count: 12, eval_count: 6 },
    });
    const lines = parseLines(await (await chat({ model: OLLAMA_MODEL, messages: [{ role: 'user', content: 'x' }], stream: true })).text());
    expect(lines.map((line) => line.message.content)).toEqual(['Let me ', 'check.', '', '']);
    expect(lines[2]?.message.tool_calls).toEqual([{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }]);
    expect(lines[3]).toMatchObject({ done: true, prompt_eval_count: 12, eval_count: 6 });
  });

  it('answers stream:false with one object holding the whole message and the counters', async () => {
    fake.enqueue({ text: 'Whole answer.', toolCalls: [{ name: 'lookup', arguments: { term: 'ion' } }] });
    const response = await chat({ model: OLLAMA_MODEL, messages: [{ role: 'user', content: 'x' }], stream: false });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, any>;
    expect(body).toMatchObject({
      model: OLLAMA_MODEL,
      message: { role: 'assistant', content: 'Whole answer.', tool_calls: [{ function: { name: 'lookup', arguments: { term: 'ion' } } }] },
      done: true,
      done_reason: 'stop',
    });
    expect(body.eval_count).toBeGreaterThan(0);
    expect(body.prompt_eval_count).toBeGreaterThan(0);
  });

  it('answers a scripted error with its status and an {"error": ...} body', async () => {
    fake.enqueue({ status: 404, errorMessage: 'model "missing" not found, try pulling it first' });
    const response = await chat({ model: 'missing', messages: [{ role: 'user', content: 'x' }] });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'model "missing" not found, try pulling it first' });
  });

  it('refuses a body that is not JSON with 400 and an error body', async () => {
    const response = await fetch(`${fake.baseUrl}/api/chat`, { method: 'POST', body: 'not json' });
    expect(response.status).toBe(400);
    expect(typeof ((await response.json()) as { error: unknown }).error).toBe('string');
  });

  it('cuts the stream before the done line when told to drop, and reports a malformed line when told to', async () => {
    fake.enqueue({ chunks: ['a', 'b', 'c'], dropAfterChunks: 1 });
    const dropped = await chat({ model: OLLAMA_MODEL, messages: [{ role: 'user', content: 'x' }] });
    await expect(dropped.text()).rejects.toThrow();

    fake.enqueue({ chunks: ['a', 'b'], malformedAfterChunks: 1 });
    const text = await (await chat({ model: OLLAMA_MODEL, messages: [{ role: 'user', content: 'x' }] })).text();
    const [first, second] = text.split('\n');
    expect(JSON.parse(first ?? '')).toMatchObject({ done: false, message: { content: 'a' } });
    expect(() => JSON.parse(second ?? '')).toThrow();
  });

  it('counts a client abort mid-stream as a disconnected request', async () => {
    fake.enqueue({ chunks: ['one', 'two', 'three'], chunkDelayMs: 200 });
    const controller = new AbortController();
    const response = await chat({ model: OLLAMA_MODEL, messages: [{ role: 'user', content: 'x' }] }, controller.signal);
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await eventually(() => fake.disconnectedRequests() === 1);
  });

  it('lists installed models at /api/tags in Ollama’s shape', async () => {
    const body = (await (await fetch(`${fake.baseUrl}/api/tags`)).json()) as { models: Array<Record<string, any>> };
    expect(body.models.length).toBeGreaterThan(0);
    for (const model of body.models) {
      expect(model).toMatchObject({
        name: expect.any(String),
        model: expect.any(String),
        modified_at: expect.any(String),
        size: expect.any(Number),
      });
      expect(model.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(model.details).toMatchObject({ format: 'gguf', family: expect.any(String), parameter_size: expect.any(String) });
    }
    expect(body.models.map((model) => model.name)).toContain(OLLAMA_MODEL);
  });

  it('returns deterministic embeddings at /api/embed for a string or a list of strings', async () => {
    const embed = async (input: unknown): Promise<Record<string, any>> =>
      (await (
        await fetch(`${fake.baseUrl}/api/embed`, { method: 'POST', body: JSON.stringify({ model: 'nomic-embed-text', input }) })
      ).json()) as Record<string, any>;
    const many = await embed(['cell', 'atom', 'cell']);
    expect(many).toMatchObject({ model: 'nomic-embed-text', load_duration: expect.any(Number), total_duration: expect.any(Number) });
    expect(many.prompt_eval_count).toBeGreaterThan(0);
    expect(many.embeddings).toHaveLength(3);
    expect(many.embeddings[0]).toHaveLength(64);
    expect(many.embeddings[2]).toEqual(many.embeddings[0]);
    expect(many.embeddings[1]).not.toEqual(many.embeddings[0]);

    const single = await embed('cell');
    expect(single.embeddings).toEqual([many.embeddings[0]]);
  });

  it('answers unknown routes with plain-text 404 as Ollama’s router does', async () => {
    const response = await fetch(`${fake.baseUrl}/api/nothing`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('404 page not found');
  });
});
