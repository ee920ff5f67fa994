/**
 * Proves, over real HTTP on both dialects and through both connectors, that an answer the
 * provider cut short is an error, never a short answer: a stream that just stops (no OpenAI
 * `finish_reason` or `[DONE]`, no Ollama `done: true`) or that hangs until UPSTREAM_TIMEOUT_MS
 * gives 502/504 before the first byte and, once text has been sent, an error chunk with no
 * `[DONE]` after it (DESIGN §4). The usage log says the run failed and keeps the usage the
 * provider did report. Once, such answers came back 200 with `finish_reason: "stop"` and `[DONE]`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from './fakes/fake-open-meteo-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const UPSTREAM_TIMEOUT_MILLISECONDS = 700;

/** The `data:` payloads of an SSE body, in order. */
function sseEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

function streamedText(events: string[]): string {
  return events
    .filter((event) => event !== '[DONE]')
    .map((event) => JSON.parse(event) as { choices?: Array<{ delta?: { content?: string } }> })
    .map((chunk) => chunk.choices?.[0]?.delta?.content ?? '')
    .join('');
}

describe.each(TEST_DIALECTS)('cut upstream answers are errors on %s', (dialect) => {
  let fakeOpenAi: FakeOpenAiServer;
  let fakeOllama: FakeOllamaServer;
  let weather: FakeOpenMeteoServer;
  let server: TestServer;
  let token: string;
  const models = { openai: '', ollama: '', withTools: '' };

  beforeAll(async () => {
    fakeOpenAi = await startFakeOpenAiServer();
    fakeOllama = await startFakeOllamaServer();
    weather = await startFakeOpenMeteoServer();
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: fakeOpenAi.baseUrl,
        OLLAMA_BASE_URL: fakeOllama.baseUrl,
        OPEN_METEO_GEOCODING_URL: weather.geocodingUrl,
        OPEN_METEO_FORECAST_URL: weather.forecastUrl,
        UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MILLISECONDS),
      },
    });
    token = await loginAsAdmin(server);
    const create = async (name: string, metadata: Record<string, unknown>) =>
      `lamb_assistant.${(await request(server, 'POST', '/api/assistants', { token, body: { name, metadata } })).body.id}`;
    models.openai = await create('openai tutor', { connector: 'openai', llm: 'gpt-4o-mini' });
    models.ollama = await create('ollama tutor', { connector: 'ollama', llm: 'llama3.1' });
    models.withTools = await create('weather tutor', { connector: 'openai', llm: 'gpt-4o-mini', tools: ['weather'] });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fakeOpenAi)?.close();
    await possiblyUnset(fakeOllama)?.close();
    await possiblyUnset(weather)?.close();
  });

  beforeEach(() => {
    fakeOpenAi.reset();
    fakeOllama.reset();
    weather.reset();
  });

  function chat(model: string, stream: boolean) {
    return request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, stream, messages: [{ role: 'user', content: 'Explain osmosis.' }] },
    });
  }

  async function latestUsageLog() {
    return server.store.db.selectFrom('usage_logs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
  }

  /** A 200 stream whose text stopped at `text`, then one error chunk with `code`, and no [DONE]. */
  function expectCutStream(response: Awaited<ReturnType<typeof chat>>, text: string, code: string): void {
    expect(response.status).toBe(200);
    const events = sseEvents(response.text);
    expect(events).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)!).error).toMatchObject({ code });
    expect(streamedText(events.slice(0, -1))).toBe(text);
    expect(response.text).not.toContain('"finish_reason":"stop"');
  }

  describe('openai connector', () => {
    it('a stream that stops without finish_reason ends with an error chunk and no [DONE]', async () => {
      // Chunks: the role, 'one ', 'two ', 'three'; the fake stops after 'two '.
      fakeOpenAi.enqueue({ chunks: ['one ', 'two ', 'three'], endAfterChunks: 3 });
      expectCutStream(await chat(models.openai, true), 'one two ', 'upstream_error');
      expect(await latestUsageLog()).toMatchObject({ outcome: 'failed:upstream_error', total_tokens: 0 });
    });

    it('the same answer without streaming is a 502', async () => {
      fakeOpenAi.enqueue({ chunks: ['one ', 'two ', 'three'], endAfterChunks: 3 });
      const response = await chat(models.openai, false);
      expect(response.status).toBe(502);
      expect(response.body.error.code).toBe('upstream_error');
    });

    it('a stream that hangs mid-answer ends with an upstream_timeout error chunk and no [DONE]', async () => {
      fakeOpenAi.enqueue({ chunks: ['one ', 'two ', 'three'], hangAfterChunks: 2 });
      expectCutStream(await chat(models.openai, true), 'one ', 'upstream_timeout');
      expect(await latestUsageLog()).toMatchObject({ outcome: 'failed:upstream_timeout' });
    });

    it('a hang before any text is a real 504, streamed or not', async () => {
      fakeOpenAi.enqueue({ chunks: ['one '], hangAfterChunks: 1 }, { chunks: ['one '], hangAfterChunks: 1 });
      const streamed = await chat(models.openai, true);
      expect(streamed.status).toBe(504);
      expect(streamed.body.error.code).toBe('upstream_timeout');
      const whole = await chat(models.openai, false);
      expect(whole.status).toBe(504);
    });

    it('records the usage reported before the cut: a finished tool round, then a cut answer', async () => {
      fakeOpenAi.enqueue(
        {
          toolCalls: [{ id: 'w1', name: 'get_weather', arguments: '{"location":"Barcelona"}' }],
          usage: { prompt_tokens: 40, completion_tokens: 9 },
        },
        { chunks: ['It is ', 'sunny'], endAfterChunks: 2 },
      );
      const response = await chat(models.withTools, false);
      expect(response.status).toBe(502);
      expect(await latestUsageLog()).toMatchObject({
        outcome: 'failed:upstream_error',
        prompt_tokens: 40,
        completion_tokens: 9,
        total_tokens: 49,
      });
    });

    it('still answers a whole stream with finish_reason, usage and [DONE]', async () => {
      fakeOpenAi.enqueue({ chunks: ['whole ', 'answer'], usage: { prompt_tokens: 5, completion_tokens: 2 } });
      const response = await chat(models.openai, true);
      const events = sseEvents(response.text);
      expect(events.at(-1)).toBe('[DONE]');
      expect(streamedText(events)).toBe('whole answer');
      expect(await latestUsageLog()).toMatchObject({ outcome: 'completed', total_tokens: 7 });
    });
  });

  describe('ollama connector', () => {
    it('a stream that stops without done: true ends with an error chunk and no [DONE]', async () => {
      fakeOllama.enqueue({ chunks: ['one ', 'two ', 'three'], endAfterChunks: 2 });
      expectCutStream(await chat(models.ollama, true), 'one two ', 'upstream_error');
      expect(await latestUsageLog()).toMatchObject({ outcome: 'failed:upstream_error' });
    });

    it('the same answer without streaming is a 502', async () => {
      fakeOllama.enqueue({ chunks: ['one ', 'two ', 'three'], endAfterChunks: 2 });
      const response = await chat(models.ollama, false);
      expect(response.status).toBe(502);
      expect(response.body.error.code).toBe('upstream_error');
    });

    it('a stream that hangs mid-answer ends with an upstream_timeout error chunk, or a 504 without streaming', async () => {
      fakeOllama.enqueue(
        { chunks: ['one ', 'two ', 'three'], hangAfterChunks: 1 },
        { chunks: ['one ', 'two ', 'three'], hangAfterChunks: 1 },
      );
      expectCutStream(await chat(models.ollama, true), 'one ', 'upstream_timeout');
      expect(await latestUsageLog()).toMatchObject({ outcome: 'failed:upstream_timeout' });
      const whole = await chat(models.ollama, false);
      expect(whole.status).toBe(504);
    });
  });
});
