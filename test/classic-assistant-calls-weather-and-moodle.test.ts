/**
 * Seed 003 over real HTTP on both dialects: a classic assistant with `tools: ["weather",
 * "moodle"]` is offered get_weather and get_moodle_courses; the fake model calls them; the weather
 * comes from the Open-Meteo fake and the courses from the Moodle fake for the person chatting —
 * the account's email, or the learner Open WebUI names when TRUST_FORWARDED_USER_HEADERS is on and
 * the request uses a system admin's trusted front-end API key, never a user the model names. Without Moodle configured the tool is
 * not offered and a call to it is told why; moodle_augment fills {moodle_user}.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeMoodleServer, type FakeMoodleServer } from './fakes/fake-moodle-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from './fakes/fake-openai-server.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from './fakes/fake-open-meteo-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const MOODLE_TOKEN = 'moodle-ws-token-for-merino';

function toolResults(recorded: RecordedRequest | undefined): string[] {
  return ((recorded?.body?.messages ?? []) as Array<{ role: string; content: string }>)
    .filter((message) => message.role === 'tool')
    .map((message) => message.content);
}

describe.each(TEST_DIALECTS)('a classic assistant with weather and Moodle tools on %s', (dialect) => {
  let model: FakeOpenAiServer;
  let weather: FakeOpenMeteoServer;
  let moodle: FakeMoodleServer;
  let server: TestServer;
  let adminToken: string;
  let learner: CreatedUser;
  let assistantModel: string;
  let organizationId: number;

  const chatRequests = () => model.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
  const setMoodle = (value: unknown) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: adminToken, body: { moodle: value } });

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    weather = await startFakeOpenMeteoServer();
    moodle = await startFakeMoodleServer({
      token: MOODLE_TOKEN,
      users: [
        { id: 41, username: 'ada', firstname: 'Ada', lastname: 'Lovelace', email: `ada-${dialect}@school.test` },
        { id: 42, username: 'grace', firstname: 'Grace', lastname: 'Hopper', email: 'grace@school.test' },
      ],
      courses: [
        { id: 7, shortname: 'BIO101', fullname: 'Introduction to Biology' },
        { id: 8, shortname: 'CS201', fullname: 'Compilers' },
      ],
      enrolments: [
        { userid: 41, courseid: 7 },
        { userid: 42, courseid: 8 },
      ],
    });
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
        OPEN_METEO_GEOCODING_URL: weather.geocodingUrl,
        OPEN_METEO_FORECAST_URL: weather.forecastUrl,
        TRUST_FORWARDED_USER_HEADERS: 'true',
      },
    });
    adminToken = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    expect((await setMoodle({ api_url: moodle.apiUrl, token: MOODLE_TOKEN })).status).toBe(200);
    learner = await createUser(server, adminToken, { email: `ada-${dialect}@school.test`, role: 'learner' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: 'Campus helper',
        system_prompt: 'Help students.',
        metadata: { connector: 'openai', llm: 'gpt-4o-mini', tools: ['weather', 'moodle'], verbose: true },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(
      (await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: adminToken, body: { published: true } })).status,
    ).toBe(200);
    assistantModel = `lamb_assistant.${created.body.id}`;
  });

  beforeEach(() => {
    model.reset();
    moodle.reset();
    weather.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(model)?.close();
    await possiblyUnset(weather)?.close();
    await possiblyUnset(moodle)?.close();
  });

  it('offers get_weather and get_moodle_courses, and answers with the weather the model asked for', async () => {
    model.enqueue(
      { toolCalls: [{ id: 'w1', name: 'get_weather', arguments: '{"location":"Barcelona"}' }] },
      { text: 'Sunny in Barcelona.' },
    );
    const client = new OpenAI({ apiKey: learner.token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: assistantModel,
      messages: [{ role: 'user', content: 'Weather in Barcelona?' }],
    });
    expect(answer.choices[0]!.message.content).toBe('Sunny in Barcelona.');
    expect(chatRequests()[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather', 'get_moodle_courses']);
    const result = toolResults(chatRequests()[1])[0]!;
    expect(result).toContain('Barcelona');
    expect(result).toContain('16.2');
    expect(weather.queries('geocoding')[0]!.get('name')).toBe('Barcelona');
  });

  it('lists the courses of the person chatting, whatever user the model names', async () => {
    model.enqueue({ toolCalls: [{ id: 'm1', name: 'get_moodle_courses', arguments: '{"user_id":"42"}' }] }, { text: 'You take biology.' });
    const client = new OpenAI({ apiKey: learner.token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
    const result = toolResults(chatRequests()[1])[0]!;
    expect(result).toContain('Introduction to Biology');
    expect(result).not.toContain('Compilers');
    expect(moodle.callsOf('core_user_get_users_by_field')[0]!.parameters).toMatchObject({
      field: 'email',
      values: [`ada-${dialect}@school.test`],
    });
  });

  it('believes Open WebUI’s forwarded learner only with a trusted front-end key, since the server trusts the header', async () => {
    // The chat runs as the Merino account the header names, so Grace has one (docs/open-webui.md).
    await createUser(server, adminToken, { email: 'grace@school.test', role: 'learner' });
    const key = await request(server, 'POST', '/api/api-keys', {
      token: adminToken,
      body: { name: 'open-webui', trusted_front_end: true },
    });
    expect(key.status, key.text).toBe(201);
    const viaFrontEnd = new OpenAI({
      apiKey: key.body.key,
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'X-OpenWebUI-User-Email': 'grace@school.test' },
    });
    model.enqueue({ toolCalls: [{ id: 'm2', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'Compilers.' });
    await viaFrontEnd.chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
    expect(toolResults(chatRequests()[1])[0]).toContain('Compilers');

    model.reset();
    const viaSession = new OpenAI({
      apiKey: learner.token,
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'X-OpenWebUI-User-Email': 'grace@school.test' },
    });
    model.enqueue({ toolCalls: [{ id: 'm3', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'Biology.' });
    await viaSession.chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
    expect(toolResults(chatRequests()[1])[0]).toContain('Introduction to Biology');
  });

  it('does not offer the Moodle tool without Moodle, and tells a model that calls it anyway why not', async () => {
    expect((await setMoodle(null)).status).toBe(200);
    try {
      model.enqueue({ toolCalls: [{ id: 'm4', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'No Moodle.' });
      const client = new OpenAI({ apiKey: learner.token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
      expect(chatRequests()[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather']);
      expect(toolResults(chatRequests()[1])[0]).toBe(
        'Error: "get_moodle_courses" is not available: its service is not configured for this organization',
      );
    } finally {
      await setMoodle({ api_url: moodle.apiUrl, token: MOODLE_TOKEN });
    }
  });

  it('fills {moodle_user} with the Moodle id of the person chatting through moodle_augment', async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: 'Moodle-aware',
        prompt_template: 'Student: {moodle_user}\n{user_input}',
        metadata: { connector: 'bypass', llm: 'debug-bypass', prompt_processor: 'moodle_augment' },
      },
    });
    await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: adminToken, body: { published: true } });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: learner.token,
      body: { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: 'hello' }] },
    });
    const prompt = JSON.parse(answer.body.choices[0].message.content).messages.at(-1).content;
    expect(prompt).toContain('Student: 41');
  });
});
