/**
 * Proves INTEGRATION_RESPONSE_MAX_BYTES on both stores, over real HTTP: with a small bound, an
 * Open-Meteo forecast (reached with the server's own fetch) or a Moodle course list (the
 * organization's Moodle, reached through the outbound guard) larger than the bound fails the tool
 * call with one clear sentence naming the service, its host and the setting — the model reads it
 * as the call's result, with no stack trace and nothing the service sent — and the answer ends
 * normally; answers under the bound still work. (src/config/settings.test.ts checks the setting's
 * default and range.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeMoodleServer, type FakeMoodleCourse, type FakeMoodleServer } from './fakes/fake-moodle-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from './fakes/fake-openai-server.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from './fakes/fake-open-meteo-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const BYTES_MAXIMUM = 8_192;
const MOODLE_TOKEN = 'moodle-ws-token-for-the-bound';
const CANARY = 'oversized-canary';
const SMALL_COURSE: FakeMoodleCourse = { id: 7, shortname: 'BIO101', fullname: 'Introduction to Biology' };
/** Enough courses with long names that Moodle's list of them passes the bound many times over. */
const MANY_COURSES: FakeMoodleCourse[] = Array.from({ length: 60 }, (_, index) => ({
  id: 100 + index,
  shortname: `SEM${index}`,
  fullname: `${CANARY} seminar ${index}: ${'a very long course title that keeps going '.repeat(4)}`,
}));

/** A real Open-Meteo forecast shape that also carries sixteen days of hourly values, as a client asking for `hourly` gets. */
function oversizedForecast(): Record<string, unknown> {
  const hours = Array.from({ length: 16 * 24 }, (_, index) => {
    const day = String(14 + Math.floor(index / 24)).padStart(2, '0');
    return `2025-03-${day}T${String(index % 24).padStart(2, '0')}:00`;
  });
  return {
    latitude: 52.52,
    longitude: 13.41,
    generationtime_ms: 0.05,
    utc_offset_seconds: 3600,
    timezone: 'Europe/Berlin',
    timezone_abbreviation: 'CET',
    elevation: 74,
    hourly_units: { time: 'iso8601', temperature_2m: '°C', relative_humidity_2m: '%' },
    hourly: {
      time: hours,
      temperature_2m: hours.map((_, index) => 8 + (index % 7) / 10),
      relative_humidity_2m: hours.map((_, index) => 70 + (index % 20)),
    },
  };
}

function oversizedMessage(service: string, url: string): string {
  return `${service} at ${new URL(url).host} sent an answer larger than INTEGRATION_RESPONSE_MAX_BYTES (${BYTES_MAXIMUM} bytes) allows.`;
}

function toolResults(recorded: RecordedRequest | undefined): string[] {
  return ((recorded?.body?.messages ?? []) as Array<{ role: string; content: string }>)
    .filter((message) => message.role === 'tool')
    .map((message) => message.content);
}

describe.each(TEST_DIALECTS)('integration answers past INTEGRATION_RESPONSE_MAX_BYTES on %s', (dialect) => {
  let model: FakeOpenAiServer;
  let weather: FakeOpenMeteoServer;
  let moodle: FakeMoodleServer;
  let server: TestServer;
  let fewCourses: CreatedUser;
  let manyCourses: CreatedUser;
  let assistantModel: string;

  const chatRequests = () => model.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));

  /** One chat turn in which the fake model calls `name`, then answers `reply`; returns what the tool told the model. */
  async function callTool(learner: CreatedUser, name: string, argumentsText: string, reply: string): Promise<string> {
    model.enqueue({ toolCalls: [{ id: 'call-1', name, arguments: argumentsText }] }, { text: reply });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: learner.token,
      body: { model: assistantModel, messages: [{ role: 'user', content: 'Please look it up.' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.choices[0].message.content).toBe(reply);
    expect(answer.text).not.toContain(CANARY);
    const results = toolResults(chatRequests()[1]);
    expect(results).toHaveLength(1);
    return results[0]!;
  }

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    weather = await startFakeOpenMeteoServer();
    moodle = await startFakeMoodleServer({
      token: MOODLE_TOKEN,
      users: [
        { id: 41, username: 'ada', firstname: 'Ada', lastname: 'Lovelace', email: 'ada@school.test' },
        { id: 42, username: 'grace', firstname: 'Grace', lastname: 'Hopper', email: 'grace@school.test' },
      ],
      courses: [SMALL_COURSE, ...MANY_COURSES],
      enrolments: [{ userid: 41, courseid: SMALL_COURSE.id }, ...MANY_COURSES.map((course) => ({ userid: 42, courseid: course.id }))],
    });
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
        OPEN_METEO_GEOCODING_URL: weather.geocodingUrl,
        OPEN_METEO_FORECAST_URL: weather.forecastUrl,
        INTEGRATION_RESPONSE_MAX_BYTES: String(BYTES_MAXIMUM),
      },
    });
    const adminToken = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const savedMoodle = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { moodle: { api_url: moodle.apiUrl, token: MOODLE_TOKEN } },
    });
    expect(savedMoodle.status, savedMoodle.text).toBe(200);
    fewCourses = await createUser(server, adminToken, { email: 'ada@school.test', role: 'learner' });
    manyCourses = await createUser(server, adminToken, { email: 'grace@school.test', role: 'learner' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: { name: 'Bounded helper', metadata: { connector: 'openai', llm: 'gpt-4o-mini', tools: ['weather', 'moodle'] } },
    });
    expect(created.status, created.text).toBe(201);
    const published = await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, {
      token: adminToken,
      body: { published: true },
    });
    expect(published.status, published.text).toBe(200);
    assistantModel = `lamb_assistant.${created.body.id}`;
  });

  beforeEach(() => {
    model.reset();
    weather.reset();
    moodle.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(model)?.close();
    await possiblyUnset(weather)?.close();
    await possiblyUnset(moodle)?.close();
  });

  it('fails a weather call whose Open-Meteo forecast passes the bound, naming the service and the bound', async () => {
    const forecast = oversizedForecast();
    expect(JSON.stringify(forecast).length).toBeGreaterThan(BYTES_MAXIMUM);
    weather.enqueue({ endpoint: 'forecast', body: forecast });
    const result = await callTool(fewCourses, 'get_weather', '{"location":"Berlin"}', 'Open-Meteo sent too much.');
    expect(result).toBe(`Error: ${oversizedMessage('Open-Meteo', weather.forecastUrl)}`);
    expect(weather.queries('forecast')).toHaveLength(1);
  });

  it('still reports the weather when the forecast is under the bound', async () => {
    const result = await callTool(fewCourses, 'get_weather', '{"location":"Berlin"}', 'Overcast in Berlin.');
    expect(result).toContain('Berlin');
    expect(result).toContain('8.4 °C');
  });

  it('fails a Moodle call whose course list passes the bound, naming the service and the bound, and says nothing Moodle sent', async () => {
    const result = await callTool(manyCourses, 'get_moodle_courses', '{}', 'Moodle sent too much.');
    expect(result).toBe(`Error: ${oversizedMessage('Moodle', moodle.apiUrl)}`);
    expect(moodle.callsOf('core_enrol_get_users_courses')).toHaveLength(1);
    expect(server.logLines.join('\n')).not.toContain(CANARY);
  });

  it('still lists the courses when Moodle’s answer is under the bound', async () => {
    const result = await callTool(fewCourses, 'get_moodle_courses', '{}', 'You take biology.');
    expect(result).toContain('Introduction to Biology');
  });
});
