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
import { toolResultsIn } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { startWeatherAndMoodleWorld, type WeatherAndMoodleWorld } from './support/weather-and-moodle-world.js';

const MOODLE_TOKEN = 'moodle-ws-token-for-merino';

describe.each(TEST_DIALECTS)('a classic assistant with weather and Moodle tools on %s', (dialect) => {
  let world: WeatherAndMoodleWorld;
  let learner: CreatedUser;

  beforeAll(async () => {
    world = await startWeatherAndMoodleWorld(dialect, {
      moodle: {
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
      },
      environment: { TRUST_FORWARDED_USER_HEADERS: 'true' },
      assistant: { name: 'Campus helper', system_prompt: 'Help students.', metadata: { verbose: true } },
    });
    learner = await createUser(world.server, world.adminToken, { email: `ada-${dialect}@school.test`, role: 'learner' });
  });

  beforeEach(() => {
    world.reset();
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('offers get_weather and get_moodle_courses, and answers with the weather the model asked for', async () => {
    world.model.enqueue(
      { toolCalls: [{ id: 'w1', name: 'get_weather', arguments: '{"location":"Barcelona"}' }] },
      { text: 'Sunny in Barcelona.' },
    );
    const client = new OpenAI({ apiKey: learner.token, baseURL: `${world.server.baseUrl}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: world.assistantModel,
      messages: [{ role: 'user', content: 'Weather in Barcelona?' }],
    });
    expect(answer.choices[0]!.message.content).toBe('Sunny in Barcelona.');
    expect(world.chatRequests()[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather', 'get_moodle_courses']);
    const result = toolResultsIn(world.chatRequests()[1])[0]!;
    expect(result).toContain('Barcelona');
    expect(result).toContain('16.2');
    expect(world.weather.queries('geocoding')[0]!.get('name')).toBe('Barcelona');
  });

  it('lists the courses of the person chatting, whatever user the model names', async () => {
    world.model.enqueue(
      { toolCalls: [{ id: 'm1', name: 'get_moodle_courses', arguments: '{"user_id":"42"}' }] },
      { text: 'You take biology.' },
    );
    const client = new OpenAI({ apiKey: learner.token, baseURL: `${world.server.baseUrl}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: world.assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
    const result = toolResultsIn(world.chatRequests()[1])[0]!;
    expect(result).toContain('Introduction to Biology');
    expect(result).not.toContain('Compilers');
    expect(world.moodle.callsOf('core_user_get_users_by_field')[0]!.parameters).toMatchObject({
      field: 'email',
      values: [`ada-${dialect}@school.test`],
    });
  });

  it('believes Open WebUI’s forwarded learner only with a trusted front-end key, since the server trusts the header', async () => {
    // The chat runs as the Merino account the header names, so Grace has one (docs/open-webui.md).
    await createUser(world.server, world.adminToken, { email: 'grace@school.test', role: 'learner' });
    const key = await request(world.server, 'POST', '/api/api-keys', {
      token: world.adminToken,
      body: { name: 'open-webui', trusted_front_end: true },
    });
    expect(key.status, key.text).toBe(201);
    const viaFrontEnd = new OpenAI({
      apiKey: key.body.key,
      baseURL: `${world.server.baseUrl}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'X-OpenWebUI-User-Email': 'grace@school.test' },
    });
    world.model.enqueue({ toolCalls: [{ id: 'm2', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'Compilers.' });
    await viaFrontEnd.chat.completions.create({ model: world.assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
    expect(toolResultsIn(world.chatRequests()[1])[0]).toContain('Compilers');

    world.model.reset();
    const viaSession = new OpenAI({
      apiKey: learner.token,
      baseURL: `${world.server.baseUrl}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'X-OpenWebUI-User-Email': 'grace@school.test' },
    });
    world.model.enqueue({ toolCalls: [{ id: 'm3', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'Biology.' });
    await viaSession.chat.completions.create({ model: world.assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
    expect(toolResultsIn(world.chatRequests()[1])[0]).toContain('Introduction to Biology');
  });

  it('does not offer the Moodle tool without Moodle, and tells a model that calls it anyway why not', async () => {
    expect((await world.setMoodle(null)).status).toBe(200);
    try {
      world.model.enqueue({ toolCalls: [{ id: 'm4', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'No Moodle.' });
      const client = new OpenAI({ apiKey: learner.token, baseURL: `${world.server.baseUrl}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ model: world.assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
      expect(world.chatRequests()[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather']);
      expect(toolResultsIn(world.chatRequests()[1])[0]).toBe(
        'Error: "get_moodle_courses" is not available: its service is not configured for this organization',
      );
    } finally {
      await world.setMoodle({ api_url: world.moodle.apiUrl, token: MOODLE_TOKEN });
    }
  });

  it('fills {moodle_user} with the Moodle id of the person chatting through moodle_augment', async () => {
    const created = await request(world.server, 'POST', '/api/assistants', {
      token: world.adminToken,
      body: {
        name: 'Moodle-aware',
        prompt_template: 'Student: {moodle_user}\n{user_input}',
        metadata: { connector: 'bypass', llm: 'debug-bypass', prompt_processor: 'moodle_augment' },
      },
    });
    await request(world.server, 'PUT', `/api/assistants/${created.body.id}/publish`, {
      token: world.adminToken,
      body: { published: true },
    });
    const answer = await request(world.server, 'POST', '/v1/chat/completions', {
      token: learner.token,
      body: { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: 'hello' }] },
    });
    const prompt = JSON.parse(answer.body.choices[0].message.content).messages.at(-1).content;
    expect(prompt).toContain('Student: 41');
  });
});
