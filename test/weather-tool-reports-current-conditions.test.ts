/**
 * Proves the `weather` tool's `get_weather` against a fake Open-Meteo over real loopback HTTP: it
 * geocodes the place the model names and reports the current conditions in the unit asked for
 * with an Open-Meteo source; an unknown place is a clear not_found error and the forecast is never
 * asked (no default city); bad arguments, upstream failures, malformed answers, its own timeout
 * and the tool call's abort signal all end in clear errors that never repeat what Open-Meteo said.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../src/errors/app-error.js';
import { loadRegistries } from '../src/pipeline/plugin-loading/registries.js';
import type { Integrations } from '../src/pipeline/plugin-contract/ports.js';
import { toolKind, type ToolContext } from '../src/pipeline/plugin-contract/tool-definition.js';
import weather from '../src/tools/weather.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from './fakes/fake-open-meteo-server.js';
import { buildToolContext } from './support/tool-context.js';
import { possiblyUnset } from './support/possibly-unset.js';

const UPSTREAM_SECRET = 'open-meteo-said-something-private';

let openMeteo: FakeOpenMeteoServer;

beforeAll(async () => {
  openMeteo = await startFakeOpenMeteoServer();
});

afterAll(async () => {
  await possiblyUnset(openMeteo)?.close();
});

beforeEach(() => {
  openMeteo.reset();
});

function endpoints(overrides: Partial<Integrations['weather']> = {}): Integrations['weather'] {
  return {
    geocodingUrl: openMeteo.geocodingUrl,
    forecastUrl: openMeteo.forecastUrl,
    timeoutMilliseconds: 2_000,
    responseBytesMaximum: 4_194_304,
    ...overrides,
  };
}

function contextWith(overrides: Partial<Integrations['weather']> = {}, signal?: AbortSignal): ToolContext {
  return buildToolContext({ integrations: { weather: endpoints(overrides) }, ...(signal !== undefined && { signal }) });
}

function getWeather(argumentsFromModel: Record<string, unknown>, context: ToolContext = contextWith()) {
  return weather.function!.call(argumentsFromModel, context, {});
}

async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError, but the call succeeded');
}

async function eventually(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !condition(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(condition()).toBe(true);
}

describe('the weather tool definition', () => {
  it('loads from the tools folder as a function tool named get_weather with an empty config', async () => {
    const registries = await loadRegistries({ info: () => undefined, error: () => undefined });
    const loaded = registries.tools.get('weather');
    expect(loaded?.name).toBe('weather');
    expect(toolKind(loaded!)).toBe('function');
    expect(await loaded!.function!.describe({}, buildToolContext())).toMatchObject({ name: 'get_weather' });
    expect(loaded!.function!.parameters).toMatchObject({
      required: ['location'],
      properties: { unit: { enum: ['celsius', 'fahrenheit'] } },
    });
    expect(loaded!.configSchema).toEqual({ type: 'object', additionalProperties: false, properties: {} });
  });
});

describe('get_weather reports the current weather', () => {
  it('geocodes the place, then reports its conditions in Celsius with an Open-Meteo source', async () => {
    const output = await getWeather({ location: 'Berlin' });
    expect(JSON.parse(output.content)).toEqual({
      location: 'Berlin',
      region: 'Land Berlin',
      country: 'Germany',
      local_time: '2025-03-14T10:45',
      timezone: 'Europe/Berlin',
      conditions: 'Overcast',
      temperature: '8.4 °C',
      feels_like: '5.9 °C',
      relative_humidity: '81 %',
      wind_speed: '14.8 km/h',
    });
    expect(output.sources).toHaveLength(1);
    expect(output.sources![0]!.title).toBe('Open-Meteo: Berlin');
    expect(output.sources![0]!.url).toContain(`${openMeteo.forecastUrl}?latitude=52.52437&longitude=13.41053`);

    const [geocoding] = openMeteo.queries('geocoding');
    expect(Object.fromEntries(geocoding!)).toEqual({ name: 'Berlin', count: '1', language: 'en', format: 'json' });
    const [forecast] = openMeteo.queries('forecast');
    expect(Object.fromEntries(forecast!)).toEqual({
      latitude: '52.52437',
      longitude: '13.41053',
      current: 'temperature_2m,relative_humidity_2m,apparent_temperature,weather_code,wind_speed_10m',
      temperature_unit: 'celsius',
      wind_speed_unit: 'kmh',
      timezone: 'auto',
    });
  });

  it('reports Fahrenheit (and wind in mph) when asked, in any letter case', async () => {
    const output = JSON.parse((await getWeather({ location: 'Barcelona', unit: 'Fahrenheit' })).content);
    expect(output).toMatchObject({
      location: 'Barcelona',
      country: 'Spain',
      temperature: '61.2 °F',
      feels_like: '59.2 °F',
      wind_speed: '6 mp/h',
      conditions: 'Mainly clear',
    });
    expect(openMeteo.queries('forecast')[0]!.get('temperature_unit')).toBe('fahrenheit');
  });

  it('passes a "place, country" qualifier through to the geocoder', async () => {
    const output = JSON.parse((await getWeather({ location: 'Paris, United States' })).content);
    expect(output).toMatchObject({ location: 'Paris', region: 'Texas', country: 'United States', timezone: 'America/Chicago' });
    expect(openMeteo.queries('geocoding')[0]!.get('name')).toBe('Paris, United States');
  });

  it('keeps query parameters of the configured URL but leaves credentials out of the source link', async () => {
    const output = await getWeather(
      { location: 'Berlin' },
      contextWith({ forecastUrl: `${openMeteo.forecastUrl}?apikey=customer-key-123` }),
    );
    expect(openMeteo.queries('forecast')[0]!.get('apikey')).toBe('customer-key-123');
    expect(output.sources![0]!.url).not.toContain('customer-key-123');
    expect(output.sources![0]!.url).toContain('latitude=52.52437');
  });
});

describe('get_weather never guesses a place', () => {
  it('answers an unknown place with not_found naming it, and never asks for a forecast', async () => {
    const error = await appErrorOf(getWeather({ location: 'Atlantis Under The Sea' }));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe('No place named "Atlantis Under The Sea" was found.');
    expect(openMeteo.queries('geocoding')).toHaveLength(1);
    expect(openMeteo.queries('forecast')).toHaveLength(0);
  });

  it('quotes an odd place name safely: one line, no quotes, bounded', async () => {
    const error = await appErrorOf(getWeather({ location: `Zz"q\nline two${'x'.repeat(150)}` }));
    expect(error.message).toMatch(/^No place named "Zz q line twox+…" was found\.$/);
    expect(error.message.length).toBeLessThan(140);
  });

  it('refuses arguments without a usable location or with an unknown unit before calling Open-Meteo', async () => {
    for (const argumentsFromModel of [
      {},
      { location: '   ' },
      { location: 42 },
      { location: 'x'.repeat(201) },
      { location: 'Berlin', unit: 'kelvin' },
    ]) {
      const error = await appErrorOf(getWeather(argumentsFromModel));
      expect(error.code, JSON.stringify(argumentsFromModel)).toBe('invalid_body');
      expect(error.message).toMatch(/^get_weather: "(location|unit)"/);
    }
    expect(openMeteo.requests).toHaveLength(0);
  });
});

describe('get_weather fails clearly when Open-Meteo does', () => {
  it('reports a geocoding 500 without repeating what Open-Meteo said', async () => {
    openMeteo.enqueue({ endpoint: 'geocoding', status: 500, reason: UPSTREAM_SECRET });
    const error = await appErrorOf(getWeather({ location: 'Berlin' }));
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe(`Open-Meteo at ${new URL(openMeteo.geocodingUrl).host} failed to answer (HTTP 500).`);
    expect(error.message).not.toContain(UPSTREAM_SECRET);
    expect(openMeteo.queries('forecast')).toHaveLength(0);
  });

  it('reports a forecast 400 as a rejected request, and a 429 as rate limiting', async () => {
    openMeteo.enqueue({ endpoint: 'forecast', status: 400, reason: UPSTREAM_SECRET });
    const rejected = await appErrorOf(getWeather({ location: 'Berlin' }));
    expect(rejected.code).toBe('upstream_rejected');
    expect(rejected.message).toContain('HTTP 400');
    expect(rejected.message).not.toContain(UPSTREAM_SECRET);

    openMeteo.enqueue({ endpoint: 'geocoding', status: 429 });
    expect((await appErrorOf(getWeather({ location: 'Berlin' }))).code).toBe('upstream_rate_limited');
  });

  it('reports malformed answers by what is wrong, not by what was sent', async () => {
    openMeteo.enqueue({ endpoint: 'geocoding', malformedJson: true });
    const notJson = await appErrorOf(getWeather({ location: 'Berlin' }));
    expect(notJson.code).toBe('upstream_error');
    expect(notJson.message).toContain('not JSON');

    openMeteo.enqueue({ endpoint: 'forecast', body: { current: { time: '2025-03-14T10:45', temperature_2m: 'warm' }, current_units: {} } });
    const wrongShape = await appErrorOf(getWeather({ location: 'Berlin' }));
    expect(wrongShape.message).toBe('Open-Meteo sent a malformed answer: "current.temperature_2m" is not a number.');
  });

  it('gives up after the integration timeout, closing the request', async () => {
    openMeteo.enqueue({ endpoint: 'forecast', delayMs: 5_000 });
    const started = performance.now();
    const error = await appErrorOf(getWeather({ location: 'Berlin' }, contextWith({ timeoutMilliseconds: 200 })));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(error.code).toBe('upstream_timeout');
    expect(error.message).toBe(`Open-Meteo at ${new URL(openMeteo.forecastUrl).host} did not answer within 200 ms.`);
    await eventually(() => openMeteo.disconnectedRequests() === 1);
  });

  it("stops as soon as the tool call's signal aborts, naming a deadline or a cancellation", async () => {
    openMeteo.enqueue({ endpoint: 'geocoding', delayMs: 5_000 });
    const deadline = await appErrorOf(getWeather({ location: 'Berlin' }, contextWith({}, AbortSignal.timeout(150))));
    expect(deadline.code).toBe('upstream_timeout');
    expect(deadline.message).toContain('The tool call ran out of time before Open-Meteo');

    openMeteo.enqueue({ endpoint: 'geocoding', delayMs: 5_000 });
    const controller = new AbortController();
    const pending = appErrorOf(getWeather({ location: 'Berlin' }, contextWith({}, controller.signal)));
    await eventually(() => openMeteo.queries('geocoding').length === 2);
    controller.abort();
    const cancelled = await pending;
    expect(cancelled.message).toContain('The request was cancelled before Open-Meteo');
    await eventually(() => openMeteo.disconnectedRequests() === 2);
  });

  it("rethrows the tool call's own AppError reason unchanged", async () => {
    const reason = new AppError('upstream_timeout', 'the tool loop gave up');
    const error = await appErrorOf(getWeather({ location: 'Berlin' }, contextWith({}, AbortSignal.abort(reason))));
    expect(error).toBe(reason);
    expect(openMeteo.requests).toHaveLength(0);
  });

  it('names an unreachable Open-Meteo by host only', async () => {
    const error = await appErrorOf(
      getWeather({ location: 'Berlin' }, contextWith({ geocodingUrl: 'http://127.0.0.1:9/v1/search?apikey=hidden-key' })),
    );
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe('Open-Meteo at 127.0.0.1:9 could not be reached.');
  });
});
