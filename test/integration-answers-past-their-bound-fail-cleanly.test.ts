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
import type { FakeMoodleCourse } from './fakes/fake-moodle-server.js';
import { toolResultsIn } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { startWeatherAndMoodleWorld, type WeatherAndMoodleWorld } from './support/weather-and-moodle-world.js';

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

describe.each(TEST_DIALECTS)('integration answers past INTEGRATION_RESPONSE_MAX_BYTES on %s', (dialect) => {
  let world: WeatherAndMoodleWorld;
  let fewCourses: CreatedUser;
  let manyCourses: CreatedUser;

  /** One chat turn in which the fake model calls `name`, then answers `reply`; returns what the tool told the model. */
  async function callTool(learner: CreatedUser, name: string, argumentsText: string, reply: string): Promise<string> {
    world.model.enqueue({ toolCalls: [{ id: 'call-1', name, arguments: argumentsText }] }, { text: reply });
    const answer = await request(world.server, 'POST', '/v1/chat/completions', {
      token: learner.token,
      body: { model: world.assistantModel, messages: [{ role: 'user', content: 'Please look it up.' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.choices[0].message.content).toBe(reply);
    expect(answer.text).not.toContain(CANARY);
    const results = toolResultsIn(world.chatRequests()[1]);
    expect(results).toHaveLength(1);
    return results[0]!;
  }

  beforeAll(async () => {
    world = await startWeatherAndMoodleWorld(dialect, {
      moodle: {
        token: MOODLE_TOKEN,
        users: [
          { id: 41, username: 'ada', firstname: 'Ada', lastname: 'Lovelace', email: 'ada@school.test' },
          { id: 42, username: 'grace', firstname: 'Grace', lastname: 'Hopper', email: 'grace@school.test' },
        ],
        courses: [SMALL_COURSE, ...MANY_COURSES],
        enrolments: [{ userid: 41, courseid: SMALL_COURSE.id }, ...MANY_COURSES.map((course) => ({ userid: 42, courseid: course.id }))],
      },
      environment: { INTEGRATION_RESPONSE_MAX_BYTES: String(BYTES_MAXIMUM) },
      assistant: { name: 'Bounded helper' },
    });
    fewCourses = await createUser(world.server, world.adminToken, { email: 'ada@school.test', role: 'learner' });
    manyCourses = await createUser(world.server, world.adminToken, { email: 'grace@school.test', role: 'learner' });
  });

  beforeEach(() => {
    world.reset();
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('fails a weather call whose Open-Meteo forecast passes the bound, naming the service and the bound', async () => {
    const forecast = oversizedForecast();
    expect(JSON.stringify(forecast).length).toBeGreaterThan(BYTES_MAXIMUM);
    world.weather.enqueue({ endpoint: 'forecast', body: forecast });
    const result = await callTool(fewCourses, 'get_weather', '{"location":"Berlin"}', 'Open-Meteo sent too much.');
    expect(result).toBe(`Error: ${oversizedMessage('Open-Meteo', world.weather.forecastUrl)}`);
    expect(world.weather.queries('forecast')).toHaveLength(1);
  });

  it('still reports the weather when the forecast is under the bound', async () => {
    const result = await callTool(fewCourses, 'get_weather', '{"location":"Berlin"}', 'Overcast in Berlin.');
    expect(result).toContain('Berlin');
    expect(result).toContain('8.4 °C');
  });

  it('fails a Moodle call whose course list passes the bound, naming the service and the bound, and says nothing Moodle sent', async () => {
    const result = await callTool(manyCourses, 'get_moodle_courses', '{}', 'Moodle sent too much.');
    expect(result).toBe(`Error: ${oversizedMessage('Moodle', world.moodle.apiUrl)}`);
    expect(world.moodle.callsOf('core_enrol_get_users_courses')).toHaveLength(1);
    expect(world.server.logLines.join('\n')).not.toContain(CANARY);
  });

  it('still lists the courses when Moodle’s answer is under the bound', async () => {
    const result = await callTool(fewCourses, 'get_moodle_courses', '{}', 'You take biology.');
    expect(result).toContain('Introduction to Biology');
  });
});
