// A scriptable stand-in for Open-Meteo's geocoding and forecast APIs that speaks their real wire
// formats on loopback, so the weather tool can be tested with no network:
//
//   GET /v1/search?name=<place>&count=1&language=en&format=json
//     → {results: [{id, name, latitude, longitude, elevation, feature_code, country_code, admin1,
//                   timezone, population, country, …}], generationtime_ms}
//       (no `results` key at all when nothing matches, as Open-Meteo answers)
//   GET /v1/forecast?latitude=…&longitude=…&current=<variables>&temperature_unit=…&wind_speed_unit=…&timezone=auto
//     → {latitude, longitude, generationtime_ms, utc_offset_seconds, timezone, timezone_abbreviation,
//        elevation, current_units: {time: "iso8601", interval: "seconds", <variable>: <unit>},
//        current: {time, interval: 900, <variable>: <value>}}
//
// Errors use Open-Meteo's `{"error": true, "reason": …}` with HTTP 400. Places come from a small
// table; a test can script delays, error statuses, malformed JSON or exact bodies per endpoint.
import type http from 'node:http';
import {
  appendBounded,
  listenOnLoopback,
  pause,
  readRequestBody,
  sendJson,
  watchExchange,
  writeFlushed,
  type RecordedRequest,
} from './fake-http.js';

export type { RecordedRequest } from './fake-http.js';

const GEOCODING_PATH = '/v1/search';
const FORECAST_PATH = '/v1/forecast';
const DEFAULT_COUNT = 10;
const COUNT_MAXIMUM = 100;
/** Coordinates this close to a table entry are that place (Open-Meteo snaps to a grid cell anyway). */
const COORDINATE_TOLERANCE = 0.05;
const OBSERVATION_INTERVAL_SECONDS = 900;

/** The variables of `current` the fake knows, with their units in Open-Meteo's spelling. */
const CURRENT_VARIABLES = [
  'temperature_2m',
  'relative_humidity_2m',
  'apparent_temperature',
  'weather_code',
  'wind_speed_10m',
  'is_day',
] as const;
type CurrentVariable = (typeof CURRENT_VARIABLES)[number];
const WIND_UNITS: Record<string, { label: string; perKmh: number }> = {
  kmh: { label: 'km/h', perKmh: 1 },
  ms: { label: 'm/s', perKmh: 1 / 3.6 },
  mph: { label: 'mp/h', perKmh: 0.621371 },
  kn: { label: 'kn', perKmh: 0.539957 },
};

export interface FakePlace {
  id: number;
  name: string;
  latitude: number;
  longitude: number;
  elevation: number;
  country: string;
  country_code: string;
  admin1?: string;
  timezone: string;
  timezone_abbreviation: string;
  utc_offset_seconds: number;
  population?: number;
  /** The weather "now", always in metric units; the fake converts on request. */
  weather: {
    temperatureCelsius: number;
    apparentCelsius: number;
    relativeHumidity: number;
    weatherCode: number;
    windKmh: number;
    isDay: boolean;
  };
}

/** A few real places with plausible weather; tests may add or replace entries. */
export const DEFAULT_PLACES: readonly FakePlace[] = [
  {
    id: 2950159,
    name: 'Berlin',
    latitude: 52.52437,
    longitude: 13.41053,
    elevation: 74,
    country: 'Germany',
    country_code: 'DE',
    admin1: 'Land Berlin',
    timezone: 'Europe/Berlin',
    timezone_abbreviation: 'CET',
    utc_offset_seconds: 3600,
    population: 3426354,
    weather: { temperatureCelsius: 8.4, apparentCelsius: 5.9, relativeHumidity: 81, weatherCode: 3, windKmh: 14.8, isDay: true },
  },
  {
    id: 3128760,
    name: 'Barcelona',
    latitude: 41.38879,
    longitude: 2.15899,
    elevation: 47,
    country: 'Spain',
    country_code: 'ES',
    admin1: 'Catalonia',
    timezone: 'Europe/Madrid',
    timezone_abbreviation: 'CET',
    utc_offset_seconds: 3600,
    population: 1620343,
    weather: { temperatureCelsius: 16.2, apparentCelsius: 15.1, relativeHumidity: 64, weatherCode: 1, windKmh: 9.7, isDay: true },
  },
  {
    id: 2988507,
    name: 'Paris',
    latitude: 48.85341,
    longitude: 2.3488,
    elevation: 42,
    country: 'France',
    country_code: 'FR',
    admin1: 'Île-de-France',
    timezone: 'Europe/Paris',
    timezone_abbreviation: 'CET',
    utc_offset_seconds: 3600,
    population: 2138551,
    weather: { temperatureCelsius: 10, apparentCelsius: 7.5, relativeHumidity: 76, weatherCode: 61, windKmh: 18, isDay: true },
  },
  {
    id: 4717560,
    name: 'Paris',
    latitude: 33.66094,
    longitude: -95.55551,
    elevation: 183,
    country: 'United States',
    country_code: 'US',
    admin1: 'Texas',
    timezone: 'America/Chicago',
    timezone_abbreviation: 'CST',
    utc_offset_seconds: -21600,
    population: 24782,
    weather: { temperatureCelsius: 21, apparentCelsius: 21.4, relativeHumidity: 55, weatherCode: 0, windKmh: 12, isDay: true },
  },
];

export type OpenMeteoEndpoint = 'geocoding' | 'forecast';

export interface ScriptedOpenMeteoReply {
  /** Which endpoint's next request this reply answers. */
  endpoint: OpenMeteoEndpoint;
  /** Wait before the response headers (the client's timeout or cancellation cuts it short). */
  delayMs?: number;
  /** Answer with this status and Open-Meteo's `{"error": true, "reason"}` body. */
  status?: number;
  /** The `reason` of a scripted error; tests put secrets here to prove clients never repeat it. */
  reason?: string;
  /** Answer 200 with a JSON content type and a truncated, unparsable body. */
  malformedJson?: boolean;
  /** Answer 200 with exactly this JSON value. */
  body?: unknown;
}

export interface FakeOpenMeteoServer {
  /** e.g. http://127.0.0.1:PORT/v1/search: the server's OPEN_METEO_GEOCODING_URL. */
  geocodingUrl: string;
  /** e.g. http://127.0.0.1:PORT/v1/forecast: the server's OPEN_METEO_FORECAST_URL. */
  forecastUrl: string;
  /** Every request; `path` is the path only, `query` below holds the parameters. */
  requests: RecordedRequest[];
  /** The query parameters of each request to one endpoint, in order. */
  queries(endpoint: OpenMeteoEndpoint): URLSearchParams[];
  /** Adds a place to the table (or replaces the one with the same id). */
  setPlace(place: FakePlace): void;
  /** FIFO per endpoint; when none is queued, requests are answered from the table. */
  enqueue(...replies: ScriptedOpenMeteoReply[]): void;
  /** How many requests the client closed before the response ended (timeouts, cancellations). */
  disconnectedRequests(): number;
  /** Clears the queues, the recordings and the disconnect count; the places stay. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeOpenMeteoServerOptions {
  places?: readonly FakePlace[];
  /** The local time every observation reports (Open-Meteo's `current.time`); fixed so tests are stable. */
  observationTime?: string;
}

function openMeteoError(reason: string): { error: true; reason: string } {
  return { error: true, reason };
}

function round(value: number, decimals = 1): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

function celsiusTo(unit: string, celsius: number): number {
  return unit === 'fahrenheit' ? round(celsius * 1.8 + 32) : celsius;
}

/** Open-Meteo's matching, simplified: the name case-insensitively, and an optional ", country or region" qualifier. */
function matchesName(place: FakePlace, query: string): boolean {
  const [name = '', qualifier] = query.split(',').map((part) => part.trim().toLowerCase());
  if (place.name.toLowerCase() !== name && !(name.length >= 3 && place.name.toLowerCase().startsWith(name))) return false;
  if (qualifier === undefined || qualifier === '') return true;
  return [place.country, place.country_code, place.admin1 ?? ''].some((candidate) => candidate.toLowerCase() === qualifier);
}

function geocodingResult(place: FakePlace): Record<string, unknown> {
  return {
    id: place.id,
    name: place.name,
    latitude: place.latitude,
    longitude: place.longitude,
    elevation: place.elevation,
    feature_code: 'PPLC',
    country_code: place.country_code,
    admin1_id: place.id + 1,
    timezone: place.timezone,
    population: place.population ?? 0,
    country_id: place.id + 2,
    country: place.country,
    ...(place.admin1 !== undefined && { admin1: place.admin1 }),
  };
}

function answerGeocoding(places: readonly FakePlace[], query: URLSearchParams, response: http.ServerResponse): void {
  const name = query.get('name');
  if (name === null) {
    sendJson(response, 400, openMeteoError("Parameter 'name' is missing"));
    return;
  }
  const count = Math.min(COUNT_MAXIMUM, Math.max(1, Number.parseInt(query.get('count') ?? String(DEFAULT_COUNT), 10) || DEFAULT_COUNT));
  // As Open-Meteo: fewer than two characters match nothing, and bigger places come first.
  const matches =
    name.trim().length < 2
      ? []
      : places.filter((place) => matchesName(place, name)).sort((left, right) => (right.population ?? 0) - (left.population ?? 0));
  const generationtime_ms = 0.4;
  sendJson(
    response,
    200,
    matches.length === 0 ? { generationtime_ms } : { results: matches.slice(0, count).map(geocodingResult), generationtime_ms },
  );
}

function nearestPlace(places: readonly FakePlace[], latitude: number, longitude: number): FakePlace | undefined {
  return places.find(
    (place) => Math.abs(place.latitude - latitude) <= COORDINATE_TOLERANCE && Math.abs(place.longitude - longitude) <= COORDINATE_TOLERANCE,
  );
}

/** Somewhere not in the table still has weather, derived from its coordinates so it is stable. */
function syntheticPlace(latitude: number, longitude: number): FakePlace {
  return {
    id: 0,
    name: 'Somewhere',
    latitude,
    longitude,
    elevation: 0,
    country: '',
    country_code: '',
    timezone: 'GMT',
    timezone_abbreviation: 'GMT',
    utc_offset_seconds: 0,
    weather: {
      temperatureCelsius: round(25 - Math.abs(latitude) / 3),
      apparentCelsius: round(24 - Math.abs(latitude) / 3),
      relativeHumidity: 60,
      weatherCode: 2,
      windKmh: 10,
      isDay: true,
    },
  };
}

function currentValue(variable: CurrentVariable, place: FakePlace, temperatureUnit: string, windUnit: string): number {
  const { weather } = place;
  switch (variable) {
    case 'temperature_2m':
      return celsiusTo(temperatureUnit, weather.temperatureCelsius);
    case 'apparent_temperature':
      return celsiusTo(temperatureUnit, weather.apparentCelsius);
    case 'relative_humidity_2m':
      return weather.relativeHumidity;
    case 'weather_code':
      return weather.weatherCode;
    case 'wind_speed_10m':
      return round(weather.windKmh * (WIND_UNITS[windUnit]?.perKmh ?? 1));
    case 'is_day':
      return weather.isDay ? 1 : 0;
  }
}

function currentUnit(variable: CurrentVariable, temperatureUnit: string, windUnit: string): string {
  switch (variable) {
    case 'temperature_2m':
    case 'apparent_temperature':
      return temperatureUnit === 'fahrenheit' ? '°F' : '°C';
    case 'relative_humidity_2m':
      return '%';
    case 'weather_code':
      return 'wmo code';
    case 'wind_speed_10m':
      return WIND_UNITS[windUnit]?.label ?? 'km/h';
    case 'is_day':
      return '';
  }
}

function answerForecast(
  places: readonly FakePlace[],
  query: URLSearchParams,
  observationTime: string,
  response: http.ServerResponse,
): void {
  const latitude = Number(query.get('latitude'));
  const longitude = Number(query.get('longitude'));
  if (query.get('latitude') === null || query.get('longitude') === null || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
    sendJson(response, 400, openMeteoError('Parameter latitude and longitude must be set'));
    return;
  }
  if (Math.abs(latitude) > 90) {
    sendJson(response, 400, openMeteoError(`Latitude must be in range of -90 to 90°. Given: ${latitude}.`));
    return;
  }
  const temperatureUnit = query.get('temperature_unit') ?? 'celsius';
  if (temperatureUnit !== 'celsius' && temperatureUnit !== 'fahrenheit') {
    sendJson(
      response,
      400,
      openMeteoError(`Cannot initialize TemperatureUnit from invalid String value ${temperatureUnit} for key temperature_unit`),
    );
    return;
  }
  const windUnit = query.get('wind_speed_unit') ?? 'kmh';
  if (WIND_UNITS[windUnit] === undefined) {
    sendJson(
      response,
      400,
      openMeteoError(`Cannot initialize WindspeedUnit from invalid String value ${windUnit} for key wind_speed_unit`),
    );
    return;
  }
  const requested = (query.get('current') ?? '').split(',').filter((variable) => variable !== '');
  const unknown = requested.find((variable) => !(CURRENT_VARIABLES as readonly string[]).includes(variable));
  if (unknown !== undefined) {
    sendJson(response, 400, openMeteoError(`Cannot initialize ForecastVariable from invalid String value ${unknown} for key current`));
    return;
  }
  const place = nearestPlace(places, latitude, longitude) ?? syntheticPlace(latitude, longitude);
  // Without timezone=auto (or one named), Open-Meteo answers in GMT.
  const local = query.get('timezone') === 'auto';
  const body: Record<string, unknown> = {
    latitude: round(place.latitude, 2),
    longitude: round(place.longitude, 2),
    generationtime_ms: 0.05,
    utc_offset_seconds: local ? place.utc_offset_seconds : 0,
    timezone: local ? place.timezone : 'GMT',
    timezone_abbreviation: local ? place.timezone_abbreviation : 'GMT',
    elevation: place.elevation,
  };
  if (requested.length > 0) {
    const variables = requested as CurrentVariable[];
    body.current_units = {
      time: 'iso8601',
      interval: 'seconds',
      ...Object.fromEntries(variables.map((variable) => [variable, currentUnit(variable, temperatureUnit, windUnit)])),
    };
    body.current = {
      time: observationTime,
      interval: OBSERVATION_INTERVAL_SECONDS,
      ...Object.fromEntries(variables.map((variable) => [variable, currentValue(variable, place, temperatureUnit, windUnit)])),
    };
  }
  sendJson(response, 200, body);
}

export async function startFakeOpenMeteoServer(options: FakeOpenMeteoServerOptions = {}): Promise<FakeOpenMeteoServer> {
  const places = new Map<number, FakePlace>((options.places ?? DEFAULT_PLACES).map((place) => [place.id, place]));
  const observationTime = options.observationTime ?? '2025-03-14T10:45';
  const requests: RecordedRequest[] = [];
  const recordedQueries: Record<OpenMeteoEndpoint, URLSearchParams[]> = { geocoding: [], forecast: [] };
  const queues: Record<OpenMeteoEndpoint, ScriptedOpenMeteoReply[]> = { geocoding: [], forecast: [] };
  let disconnectedCount = 0;

  async function answerScripted(reply: ScriptedOpenMeteoReply, response: http.ServerResponse): Promise<void> {
    if (reply.status !== undefined) {
      sendJson(response, reply.status, openMeteoError(reply.reason ?? `Scripted failure with status ${reply.status}`));
      return;
    }
    if (reply.malformedJson === true) {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      await writeFlushed(response, '{"results": [{"name": "Berl');
      response.end();
      return;
    }
    sendJson(response, 200, reply.body ?? {});
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const method = request.method ?? 'GET';
    const parsed = new URL(request.url ?? '/', 'http://fake.invalid');
    const bodyResult = await readRequestBody(request);
    appendBounded(requests, { method, path: parsed.pathname, headers: { ...request.headers }, body: undefined, receivedAt: Date.now() });
    if (bodyResult.kind === 'aborted') return;

    const endpoint: OpenMeteoEndpoint | undefined =
      parsed.pathname === GEOCODING_PATH ? 'geocoding' : parsed.pathname === FORECAST_PATH ? 'forecast' : undefined;
    if (endpoint === undefined) {
      sendJson(response, 404, openMeteoError('Not Found'));
      return;
    }
    if (method !== 'GET') {
      sendJson(response, 405, openMeteoError('Method Not Allowed'));
      return;
    }
    appendBounded(recordedQueries[endpoint], parsed.searchParams);
    const exchange = watchExchange(response, shutdownSignal, () => {
      disconnectedCount += 1;
    });
    const reply = queues[endpoint].shift();
    if (reply !== undefined) {
      if (!(await pause(reply.delayMs, exchange.signal))) return;
      if (reply.status !== undefined || reply.malformedJson === true || reply.body !== undefined) {
        await answerScripted(reply, response);
        return;
      }
    }
    const table = [...places.values()];
    if (endpoint === 'geocoding') answerGeocoding(table, parsed.searchParams, response);
    else answerForecast(table, parsed.searchParams, observationTime, response);
  }

  const server = await listenOnLoopback(handle);
  return {
    geocodingUrl: `${server.origin}${GEOCODING_PATH}`,
    forecastUrl: `${server.origin}${FORECAST_PATH}`,
    requests,
    queries: (endpoint) => recordedQueries[endpoint],
    setPlace: (place) => {
      places.set(place.id, place);
    },
    enqueue: (...replies) => {
      for (const reply of replies) queues[reply.endpoint].push(reply);
    },
    disconnectedRequests: () => disconnectedCount,
    reset: () => {
      queues.geocoding.length = 0;
      queues.forecast.length = 0;
      requests.length = 0;
      recordedQueries.geocoding.length = 0;
      recordedQueries.forecast.length = 0;
      disconnectedCount = 0;
    },
    close: () => server.close(),
  };
}
