/**
 * weather — the function tool `get_weather` (LAMB's first tool, seed 003): the current weather at
 * a city or place the model names, from Open-Meteo (geocoding, then the forecast API's `current`
 * values). A place Open-Meteo does not know is an error the model can read and repeat; the tool
 * never substitutes a default city, which would give a confident answer about the wrong place.
 */
import { AppError } from '../errors/app-error.js';
import {
  fetchCurrentWeather,
  findPlace,
  type CurrentWeather,
  type Place,
  type TemperatureUnit,
} from '../integrations/open-meteo-client.js';
import { describeWeatherCode } from '../integrations/wmo-weather-codes.js';
import { defineTool } from '../pipeline/plugin-api.js';

const FUNCTION_NAME = 'get_weather';
const LOCATION_CHARACTERS_MAXIMUM = 200;
/** A place name is quoted in an error; a longer one is cut there. */
const SHOWN_LOCATION_CHARACTERS_MAXIMUM = 100;
const TEMPERATURE_UNITS: readonly TemperatureUnit[] = ['celsius', 'fahrenheit'];

function invalidArguments(problem: string): AppError {
  return new AppError('invalid_body', `${FUNCTION_NAME}: ${problem}`, { param: 'arguments' });
}

/*
 * The tool loop checks the arguments against `parameters` before `call`, yet these checks stay:
 * they do more than the schema (a location that is blank once trimmed is refused, a unit is read
 * in any letter case), and they answer a caller that reaches `call` without the loop with the
 * same clear refusals (test/weather-tool-reports-current-conditions.test.ts holds them).
 */
function locationArgument(value: unknown): string {
  const location = typeof value === 'string' ? value.trim() : '';
  if (location === '') throw invalidArguments('"location" must name a city or place.');
  if (location.length > LOCATION_CHARACTERS_MAXIMUM)
    throw invalidArguments(`"location" must be at most ${LOCATION_CHARACTERS_MAXIMUM} characters.`);
  return location;
}

function unitArgument(value: unknown): TemperatureUnit {
  if (value === undefined || value === null) return 'celsius';
  const unit = typeof value === 'string' ? value.trim().toLowerCase() : '';
  const known = TEMPERATURE_UNITS.find((candidate) => candidate === unit);
  if (known === undefined) throw invalidArguments('"unit" must be "celsius" or "fahrenheit".');
  return known;
}

/** The name as the model wrote it, made safe to quote: one line, no quotes or control characters, bounded. */
function shownLocation(location: string): string {
  const oneLine = location
    .replace(/[\p{Cc}"]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return oneLine.length > SHOWN_LOCATION_CHARACTERS_MAXIMUM ? `${oneLine.slice(0, SHOWN_LOCATION_CHARACTERS_MAXIMUM)}…` : oneLine;
}

function withUnit(reading: { value: number; unit: string }): string {
  return reading.unit === '' ? String(reading.value) : `${reading.value} ${reading.unit}`;
}

/** A short JSON report the model can read and quote. */
function report(place: Place, weather: CurrentWeather): string {
  const { values } = weather;
  return JSON.stringify({
    location: place.name,
    ...(place.region !== undefined && { region: place.region }),
    ...(place.country !== undefined && { country: place.country }),
    local_time: weather.time,
    timezone: weather.timezone,
    conditions: describeWeatherCode(values.weather_code.value),
    temperature: withUnit(values.temperature_2m),
    feels_like: withUnit(values.apparent_temperature),
    relative_humidity: withUnit(values.relative_humidity_2m),
    wind_speed: withUnit(values.wind_speed_10m),
  });
}

export default defineTool({
  name: 'weather',
  displayName: 'Weather',
  description:
    'Lets the model look up the current weather (temperature, feels-like, humidity, wind, conditions) for a city or place, from Open-Meteo.',
  category: 'utilities',
  version: '1.0',
  configSchema: { type: 'object', additionalProperties: false, properties: {} } as const,
  function: {
    describe: () => ({
      name: FUNCTION_NAME,
      description:
        'Get the current weather (temperature, feels-like temperature, humidity, wind speed and conditions) for a city or place.',
    }),
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['location'],
      properties: {
        location: {
          type: 'string',
          minLength: 1,
          maxLength: LOCATION_CHARACTERS_MAXIMUM,
          description: 'A city or place name, e.g. "Barcelona" or "Paris, France".',
        },
        unit: { type: 'string', enum: [...TEMPERATURE_UNITS], description: 'The temperature unit; celsius when left out.' },
      },
    } as const,
    async call(argumentsFromModel, context) {
      const location = locationArgument(argumentsFromModel.location);
      const unit = unitArgument(argumentsFromModel.unit);
      const endpoints = context.integrations.weather;
      const place = await findPlace(endpoints, location, context.signal);
      if (place === undefined) throw new AppError('not_found', `No place named "${shownLocation(location)}" was found.`);
      const weather = await fetchCurrentWeather(endpoints, place, unit, context.signal);
      return {
        content: report(place, weather),
        sources: [{ title: `Open-Meteo: ${place.name}`, url: weather.sourceUrl }],
        metadata: { unit, weather_code: weather.values.weather_code.value },
      };
    },
  },
});
