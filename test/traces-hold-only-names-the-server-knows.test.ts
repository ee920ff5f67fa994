/**
 * Proves, over real HTTP on both dialects, that a verbose trace keeps only names the server
 * knows: a model (prompt-injected into it) that calls a function named after the learner's
 * words, passes an argument key made of them, writes them into broken JSON, or sends them as an
 * argument the tool then quotes in its error, leaves none of that text in the teacher's trace.
 * The trace shows `[unknown function]`, offered function names, declared keys and errors by
 * kind. The model itself still hears what went wrong.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, toolResultsIn } from './fakes/fake-openai-server.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from './fakes/fake-open-meteo-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

/** What a learner wrote; the injected model repeats it wherever it can. */
const LEARNER_SECRET = 'my_exam_answers_are_in_the_blue_folder';

describe.each(TEST_DIALECTS)('traces hold only names the server knows on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let weather: FakeOpenMeteoServer;
  let server: TestServer;
  let token: string;
  let model: string;

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    weather = await startFakeOpenMeteoServer();
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: fake.baseUrl,
        OPEN_METEO_GEOCODING_URL: weather.geocodingUrl,
        OPEN_METEO_FORECAST_URL: weather.forecastUrl,
      },
    });
    token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'weather tutor', metadata: { connector: 'openai', llm: 'gpt-4o-mini', tools: ['weather'], verbose: true } },
    });
    expect(created.status, created.text).toBe(201);
    model = `lamb_assistant.${created.body.id}`;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
    await possiblyUnset(weather)?.close();
  });

  beforeEach(() => {
    fake.reset();
    weather.reset();
  });

  it('records made-up names, keys and quoted arguments only by kind', async () => {
    fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: LEARNER_SECRET, arguments: '{}' },
          { id: 'c2', name: 'get_weather', arguments: JSON.stringify({ location: 'Oslo', [LEARNER_SECRET]: true }) },
          { id: 'c3', name: 'get_weather', arguments: `{"location": "${LEARNER_SECRET}` },
          { id: 'c4', name: 'get_weather', arguments: JSON.stringify({ location: LEARNER_SECRET }) },
        ],
      },
      { text: 'I could not find that.' },
    );
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: LEARNER_SECRET }] },
    });
    expect(response.status, response.text).toBe(200);

    // The model hears each problem in full, as before.
    const results = toolResultsIn(fake.requests.at(-1));
    expect(results[0]).toContain(`unknown tool "${LEARNER_SECRET}"`);
    expect(results[1]).toContain('is not a known field');
    expect(results[2]).toMatch(/^Error: invalid arguments: not valid JSON/);

    const trace = await request(server, 'GET', `/api/traces/${response.body.trace_id}`, { token });
    expect(trace.status).toBe(200);
    expect(JSON.stringify(trace.body)).not.toContain(LEARNER_SECRET);
    expect(JSON.stringify(trace.body)).not.toContain('blue_folder');
    expect(trace.body.functions).toEqual(['get_weather']);
    expect(trace.body.toolCalls).toEqual([
      expect.objectContaining({ function: '[unknown function]', argumentKeys: [], error: 'unknown function' }),
      expect.objectContaining({
        function: 'get_weather',
        tool: 'weather',
        argumentKeys: [],
        error: 'invalid arguments: they do not match the schema',
      }),
      expect.objectContaining({ function: 'get_weather', tool: 'weather', argumentKeys: [], error: 'invalid arguments: not valid JSON' }),
      expect.objectContaining({ function: 'get_weather', tool: 'weather', argumentKeys: ['location'], error: 'failed (not_found)' }),
    ]);
  });

  it('keeps a long made-up name out of the trace and the stored row entirely', async () => {
    const longName = `${LEARNER_SECRET}_`.repeat(2_000);
    fake.enqueue({ toolCalls: [{ id: 'c1', name: longName, arguments: '{}' }] }, { text: 'ok' });
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(response.status).toBe(200);
    const row = await server.store.db
      .selectFrom('traces')
      .select('trace')
      .where('id', '=', response.body.trace_id)
      .executeTakeFirstOrThrow();
    expect(row.trace).not.toContain(LEARNER_SECRET);
    expect(row.trace.length).toBeLessThan(10_000);
  });
});
