/**
 * The client of Open-Meteo's two public APIs the weather tool needs:
 *
 *   GET {geocodingUrl}?name=<place>&count=1&language=en&format=json
 *     → {results: [{name, latitude, longitude, country, admin1, timezone, …}]}  (no `results` when nothing matches)
 *   GET {forecastUrl}?latitude=…&longitude=…&current=<variables>&temperature_unit=…&wind_speed_unit=…&timezone=auto
 *     → {timezone, current_units: {…}, current: {time, temperature_2m, …}}
 *
 * Answers are checked field by field before anything uses them; a problem is described by field
 * name only. Query parameters already in a configured URL (a customer `apikey`) are kept.
 * Its URLs come from the server's environment only, so they are reached with `serverFetch`.
 */
import { AppError } from '../errors/app-error.js';
import { serverFetch } from '../pipeline/plugin-api.js';
import { requestIntegrationJson } from './integration-request.js';

const SERVICE = 'Open-Meteo';
/** The variables of `current` the weather tool reports. */
export const CURRENT_VARIABLES = [
  'temperature_2m',
  'relative_humidity_2m',
  'apparent_temperature',
  'weather_code',
  'wind_speed_10m',
] as const;
/** Query parameter names whose values must never be shown, e.g. in a source link. */
const SECRET_PARAMETER = /key|token|secret|password/i;

export type TemperatureUnit = 'celsius' | 'fahrenheit';

export interface OpenMeteoEndpoints {
  geocodingUrl: string;
  forecastUrl: string;
  timeoutMilliseconds: number;
  /** INTEGRATION_RESPONSE_MAX_BYTES: the largest answer read from either API. */
  responseBytesMaximum: number;
}

export interface Place {
  name: string;
  latitude: number;
  longitude: number;
  country?: string;
  /** The first-level administrative area (state, region). */
  region?: string;
  timezone?: string;
}

export interface CurrentWeather {
  /** Local time of the observation, ISO 8601 without an offset, as Open-Meteo gives it. */
  time: string;
  timezone: string;
  /** Each variable's value with the unit Open-Meteo reported for it. */
  values: Record<(typeof CURRENT_VARIABLES)[number], { value: number; unit: string }>;
  /** The URL that was asked, with any credential in its query removed, for a source link. */
  sourceUrl: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(what: string): AppError {
  return new AppError('upstream_error', `${SERVICE} sent a malformed answer: ${what}.`);
}

function endpointUrl(configured: string, parameters: Record<string, string>): URL {
  let url: URL;
  try {
    url = new URL(configured);
  } catch {
    throw new AppError('assistant_misconfigured', `The ${SERVICE} URL configured on this server is not a valid URL.`);
  }
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url;
}

/** The URL without user info or credential-like query parameters. */
function shareableUrl(url: URL): string {
  const copy = new URL(url);
  copy.username = '';
  copy.password = '';
  for (const name of [...copy.searchParams.keys()]) if (SECRET_PARAMETER.test(name)) copy.searchParams.delete(name);
  return copy.toString();
}

function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function placeOf(answer: unknown): Place | undefined {
  if (!isRecord(answer)) throw malformed('it is not a JSON object');
  // Open-Meteo leaves `results` out altogether when nothing matches.
  if (answer.results === undefined) return undefined;
  if (!Array.isArray(answer.results)) throw malformed('"results" is not a list');
  const first: unknown = answer.results[0];
  if (first === undefined) return undefined;
  if (!isRecord(first)) throw malformed('"results[0]" is not an object');
  if (typeof first.name !== 'string') throw malformed('"results[0].name" is not text');
  if (typeof first.latitude !== 'number' || typeof first.longitude !== 'number') throw malformed('"results[0]" has no coordinates');
  return {
    name: first.name,
    latitude: first.latitude,
    longitude: first.longitude,
    country: optionalText(first.country),
    region: optionalText(first.admin1),
    timezone: optionalText(first.timezone),
  };
}

/** One GET to Open-Meteo, under the integration's time and size bounds; Open-Meteo is the server's choice, so it is reached directly. */
function openMeteoJson(endpoints: OpenMeteoEndpoints, url: URL, signal: AbortSignal): Promise<unknown> {
  const { timeoutMilliseconds, responseBytesMaximum } = endpoints;
  return requestIntegrationJson({ service: SERVICE, url, timeoutMilliseconds, responseBytesMaximum, signal, fetch: serverFetch });
}

/** The best match for a place name, or undefined when Open-Meteo knows no such place. */
export async function findPlace(endpoints: OpenMeteoEndpoints, name: string, signal: AbortSignal): Promise<Place | undefined> {
  const url = endpointUrl(endpoints.geocodingUrl, { name, count: '1', language: 'en', format: 'json' });
  return placeOf(await openMeteoJson(endpoints, url, signal));
}

function currentWeatherOf(answer: unknown, sourceUrl: string): CurrentWeather {
  if (!isRecord(answer)) throw malformed('it is not a JSON object');
  const current = answer.current;
  const units = answer.current_units;
  if (!isRecord(current)) throw malformed('"current" is not an object');
  if (!isRecord(units)) throw malformed('"current_units" is not an object');
  if (typeof current.time !== 'string') throw malformed('"current.time" is not text');
  const values = {} as CurrentWeather['values'];
  for (const variable of CURRENT_VARIABLES) {
    const value = current[variable];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw malformed(`"current.${variable}" is not a number`);
    values[variable] = { value, unit: typeof units[variable] === 'string' ? units[variable] : '' };
  }
  return { time: current.time, timezone: optionalText(answer.timezone) ?? 'GMT', values, sourceUrl };
}

/** The weather now at a place, in the unit asked for (wind in mph with Fahrenheit, else km/h). */
export async function fetchCurrentWeather(
  endpoints: OpenMeteoEndpoints,
  place: Place,
  unit: TemperatureUnit,
  signal: AbortSignal,
): Promise<CurrentWeather> {
  const url = endpointUrl(endpoints.forecastUrl, {
    latitude: String(place.latitude),
    longitude: String(place.longitude),
    current: CURRENT_VARIABLES.join(','),
    temperature_unit: unit,
    wind_speed_unit: unit === 'fahrenheit' ? 'mph' : 'kmh',
    timezone: 'auto',
  });
  const answer = await openMeteoJson(endpoints, url, signal);
  return currentWeatherOf(answer, shareableUrl(url));
}
