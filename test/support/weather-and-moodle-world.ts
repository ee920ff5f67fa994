/**
 * A server whose classic assistant reaches two outside services through its tools, for the suites
 * about the weather and Moodle tools over real HTTP: a fake model, a fake Open-Meteo and a fake
 * Moodle; the server's settings pointing at the first two and the admin's organization using the
 * Moodle; and a published assistant offered both tools (`tools: ["weather", "moodle"]`) that
 * answers through the fake model.
 */
import { startFakeMoodleServer, type FakeMoodleServer, type FakeMoodleServerOptions } from '../fakes/fake-moodle-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from '../fakes/fake-openai-server.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from '../fakes/fake-open-meteo-server.js';
import type { Dialect } from './test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './test-server.js';

export interface WeatherAndMoodleWorld {
  model: FakeOpenAiServer;
  weather: FakeOpenMeteoServer;
  moodle: FakeMoodleServer;
  server: TestServer;
  adminToken: string;
  organizationId: number;
  /** The assistant as the chat API names it, `lamb_assistant.{id}`. */
  assistantModel: string;
  /** Sets the organization's Moodle settings; null clears them. */
  setMoodle(value: unknown): Promise<JsonResponse>;
  /** The chat completions the fake model was asked for, in order. */
  chatRequests(): RecordedRequest[];
  /** Empties the three fakes' scripts and records, so a test sees only its own. */
  reset(): void;
  close(): Promise<void>;
}

export interface WeatherAndMoodleWorldOptions {
  /** The fake Moodle's token and tables; the organization is given the same token. */
  moodle: FakeMoodleServerOptions;
  /** Settings besides the fakes' addresses. */
  environment: Record<string, string>;
  /** The assistant's fields; its metadata adds to the connector, model and two tools every world's assistant has. */
  assistant: { name: string; system_prompt?: string; metadata?: Record<string, unknown> };
}

export async function startWeatherAndMoodleWorld(dialect: Dialect, options: WeatherAndMoodleWorldOptions): Promise<WeatherAndMoodleWorld> {
  const started: Array<{ close(): Promise<void> }> = [];
  const close = async (): Promise<void> => {
    for (const each of started.splice(0)) await each.close();
  };
  try {
    const model = await startFakeOpenAiServer();
    started.push(model);
    const weather = await startFakeOpenMeteoServer();
    started.push(weather);
    const moodle = await startFakeMoodleServer(options.moodle);
    started.push(moodle);
    const server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
        OPEN_METEO_GEOCODING_URL: weather.geocodingUrl,
        OPEN_METEO_FORECAST_URL: weather.forecastUrl,
        ...options.environment,
      },
    });
    // The first to close: until it stops, an answer may still be calling the fakes.
    started.unshift(server);
    const adminToken = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
    const setMoodle = (value: unknown): Promise<JsonResponse> =>
      request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: adminToken, body: { moodle: value } });
    const savedMoodle = await setMoodle({ api_url: moodle.apiUrl, token: options.moodle.token });
    if (savedMoodle.status !== 200) throw new Error(`setting the organization's Moodle failed: ${savedMoodle.text}`);
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        ...options.assistant,
        metadata: { connector: 'openai', llm: 'gpt-4o-mini', tools: ['weather', 'moodle'], ...options.assistant.metadata },
      },
    });
    if (created.status !== 201) throw new Error(`creating the assistant failed: ${created.text}`);
    const published = await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, {
      token: adminToken,
      body: { published: true },
    });
    if (published.status !== 200) throw new Error(`publishing the assistant failed: ${published.text}`);
    return {
      model,
      weather,
      moodle,
      server,
      adminToken,
      organizationId,
      assistantModel: `lamb_assistant.${created.body.id}`,
      setMoodle,
      chatRequests: () => model.requests.filter((recorded) => recorded.path.endsWith('/chat/completions')),
      reset() {
        model.reset();
        weather.reset();
        moodle.reset();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
