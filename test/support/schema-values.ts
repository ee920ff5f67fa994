/**
 * Values generated from the JSON schemas of the server's own /openapi.json, for the API fuzz
 * suite: values a schema accepts (typical and at its bounds) and hostile ones it should refuse or
 * survive (wrong types, out-of-range numbers, huge and deeply nested values, NUL bytes, lone
 * surrogates, path traversal). URLs generated here only ever point at 127.0.0.1, so no fuzzed
 * setting can make the server reach beyond this machine.
 */
import type { SeededRandom } from './seeded-random.js';

export type JsonSchema = Record<string, any>;

/** A discard port nothing listens on, so a fuzzed URL that the server does call fails fast and locally. */
export const CLOSED_LOOPBACK_URL = 'http://127.0.0.1:9';

/** JSON nested deeper than the server's JSON_DEPTH_MAX (64 by default). */
const DEEP_NESTING = 200;
/** Over any field's maxLength, under the 1 MiB body limit. */
const HUGE_STRING_LENGTH = 300_000;

const FRIENDLY_TEXTS = [
  'Biology tutor',
  'Évaluation orale partagée',
  'Ecuaciones de segundo grado',
  '日本語の説明文',
  'مساعد تعليمي',
  'Llama 🦙 helper',
  'Zürich — Straße',
  'a',
  'Cells, tissues & organs: "why?"',
];

/** Strings that broke other servers: traversal, encodings, injections, control and invisible characters. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'nul\u0000byte',
  '\ud800',
  '\udc00lone low',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%2e%2e%2f%2e%2e%2f',
  '{user_input}{context}{{7*7}}${7*7}',
  "'; DROP TABLE users; --",
  '<script>alert(1)</script>',
  '\u202e\u200b\ufeff',
  'e\u0301\u0301\u0301\u0301',
  '\r\nX-Injected: 1',
  '𝕳𝖊𝖑𝖑𝖔 🧪🧬',
  '__proto__',
  'constructor',
  'x' + ' '.repeat(2_000) + 'x',
  '.'.repeat(2_000),
  '#'.repeat(2_000),
  '['.repeat(2_000),
  'lamb_assistant.1',
  'lamb_assistant.../../1',
  'null',
  '-1',
  'NaN',
  'true',
];

const WRONG_TYPE_VALUES: ReadonlyArray<{ type: string; value: unknown }> = [
  { type: 'string', value: 'a string of the wrong type' },
  { type: 'integer', value: 12345 },
  { type: 'number', value: 1.25 },
  { type: 'boolean', value: false },
  { type: 'array', value: ['an', 'array'] },
  { type: 'object', value: { an: 'object' } },
  { type: 'null', value: null },
];

const HOSTILE_NUMBERS: readonly number[] = [
  0,
  -1,
  -0,
  1.5,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  1e308,
  -1e308,
  1e-308,
  99_999_999_999,
];

export function deeplyNested(kind: 'array' | 'object', depth = DEEP_NESTING): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** The JSON types a schema admits, or undefined when it admits anything. */
export function admittedTypes(schema: JsonSchema): Set<string> | undefined {
  const types = new Set<string>();
  if (schema.type !== undefined) for (const type of [schema.type].flat()) types.add(type);
  if (schema.nullable === true) types.add('null');
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as JsonSchema[]) {
    const inner = admittedTypes(alternative);
    if (inner === undefined) return undefined;
    for (const type of inner) types.add(type);
  }
  if (types.has('number')) types.add('integer');
  return types.size === 0 ? undefined : types;
}

function alternativesOf(schema: JsonSchema): JsonSchema[] {
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
}

function primaryType(schema: JsonSchema, random: SeededRandom): string | undefined {
  const types = [schema.type].flat().filter((type) => type !== undefined && type !== 'null');
  return types.length === 0 ? undefined : random.pick(types);
}

function randomHex(random: SeededRandom, length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1) text += random.integer(0, 15).toString(16);
  return text;
}

export function randomUuid(random: SeededRandom): string {
  return `${randomHex(random, 8)}-${randomHex(random, 4)}-4${randomHex(random, 3)}-a${randomHex(random, 3)}-${randomHex(random, 12)}`;
}

/** Fits text into [minimum, maximum] characters by repeating or cutting it. */
function fitted(text: string, minimum: number, maximum: number): string {
  let result = text === '' ? 'x' : text;
  while (result.length < minimum) result += result;
  return result.slice(0, Math.max(minimum, Math.min(maximum, result.length)));
}

function validString(name: string, schema: JsonSchema, random: SeededRandom, atBound: 'low' | 'high' | undefined): string {
  const minimum: number = schema.minLength ?? 0;
  const maximum: number = Math.min(schema.maxLength ?? 400, 20_000);
  const pattern: string = typeof schema.pattern === 'string' ? schema.pattern : '';
  if (schema.format === 'uuid') return randomUuid(random);
  if (schema.format === 'binary') return 'file contents';
  if (pattern.includes('@') || name.includes('email')) return `fuzz-${randomHex(random, 6)}@merino.test`;
  if (pattern.startsWith('^https?://') || name.includes('url'))
    return `${CLOSED_LOOPBACK_URL}/${random.pick(['v1', 'kb', 'webservice/rest/server.php', ''])}`;
  const identifierLike = pattern.includes('\\p{L}') || name === 'rubricId' || name === 'id';
  const base = identifierLike
    ? `fuzz-${randomHex(random, 12)}`
    : name.includes('password')
      ? `pw-${randomHex(random, 16)}`
      : random.pick(FRIENDLY_TEXTS);
  if (atBound === 'low') return fitted(identifierLike ? 'k' : base, minimum, Math.max(minimum, 1));
  if (atBound === 'high') return fitted(base, maximum, maximum);
  return fitted(base, minimum, maximum);
}

function validNumber(schema: JsonSchema, random: SeededRandom, integer: boolean, atBound: 'low' | 'high' | undefined): number {
  const minimum: number =
    schema.minimum ?? (schema.exclusiveMinimum !== undefined ? (schema.exclusiveMinimum as number) + 1 : integer ? 0 : 0);
  const maximum: number = schema.maximum ?? minimum + 1_000;
  if (atBound === 'low') return minimum;
  if (atBound === 'high') return maximum;
  if (integer) return random.integer(Math.ceil(minimum), Math.floor(Math.min(maximum, minimum + 10_000)));
  return Math.round((minimum + random.next() * Math.min(maximum - minimum, 10_000)) * 1000) / 1000;
}

/**
 * A value the schema accepts. `atBound` asks for the edge of every range instead of a typical
 * value: minimum lengths and numbers ('low') or maximum ones ('high').
 */
export function validValue(name: string, schema: JsonSchema, random: SeededRandom, atBound?: 'low' | 'high', depth = 0): unknown {
  if (Array.isArray(schema.enum)) {
    const choices = schema.enum.filter((value: unknown) => value !== null);
    return choices.length === 0 ? null : random.pick(choices);
  }
  const alternatives = alternativesOf(schema);
  if (schema.type === undefined && alternatives.length > 0) return validValue(name, random.pick(alternatives), random, atBound, depth);
  const type = primaryType(schema, random) ?? (schema.properties !== undefined ? 'object' : random.pick(['string', 'integer', 'object']));
  switch (type) {
    case 'string':
      return validString(name, schema, random, atBound);
    case 'integer':
      return validNumber(schema, random, true, atBound);
    case 'number':
      return validNumber(schema, random, false, atBound);
    case 'boolean':
      return random.chance(0.5);
    case 'array': {
      const minimum: number = schema.minItems ?? 0;
      const maximum: number = Math.min(schema.maxItems ?? 3, atBound === 'high' ? 1_000 : 3);
      const count = atBound === 'low' ? minimum : atBound === 'high' ? maximum : random.integer(minimum, Math.max(minimum, maximum));
      const items = schema.items ?? { type: 'string' };
      return Array.from({ length: count }, () => validValue(name, items, random, atBound, depth + 1));
    }
    case 'object':
      return validObject(schema, random, atBound, depth);
    default:
      return random.pick(FRIENDLY_TEXTS);
  }
}

/** An object with every required property and, at random, some optional ones. */
export function validObject(schema: JsonSchema, random: SeededRandom, atBound?: 'low' | 'high', depth = 0): Record<string, unknown> {
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const result: Record<string, unknown> = {};
  for (const [name, propertySchema] of Object.entries(properties)) {
    const include = required.has(name) || (depth < 4 && (atBound === 'high' || random.chance(0.5)));
    // Properties documented with an empty schema ({}) are the ones a server ignores or refuses (id, owner).
    if (include && Object.keys(propertySchema).length > 0) result[name] = validValue(name, propertySchema, random, atBound, depth + 1);
  }
  if (Object.keys(properties).length === 0 && schema.type === 'object' && depth === 0) result.name = random.pick(FRIENDLY_TEXTS);
  return result;
}

/** A value of a JSON type the schema does not admit, or a hostile value of an admitted type. */
export function hostileValue(schema: JsonSchema, random: SeededRandom): unknown {
  const types = admittedTypes(schema);
  const kind = random.weighted<string>([
    [3, 'wrong type'],
    [2, 'hostile string'],
    [2, 'out of range'],
    [1, 'too long'],
    [1, 'huge string'],
    [1, 'deep nesting'],
    [1, 'too many items'],
    [1, 'prototype keys'],
  ]);
  switch (kind) {
    case 'wrong type': {
      const wrong = WRONG_TYPE_VALUES.filter((entry) => types !== undefined && !types.has(entry.type));
      return wrong.length === 0 ? random.pick(HOSTILE_STRINGS) : random.pick(wrong).value;
    }
    case 'hostile string':
      return random.pick(HOSTILE_STRINGS);
    case 'out of range': {
      if (typeof schema.maximum === 'number' && random.chance(0.4)) return schema.maximum + random.pick([1, 0.5, 1e9]);
      if (typeof schema.minimum === 'number' && random.chance(0.4)) return schema.minimum - random.pick([1, 0.5, 1e9]);
      return random.pick(HOSTILE_NUMBERS);
    }
    case 'too long':
      return 'y'.repeat(((schema.maxLength as number | undefined) ?? 10_000) + 1);
    case 'huge string':
      return random.pick(['z', 'é', '🦙', '\u0000']).repeat(HUGE_STRING_LENGTH / 4);
    case 'deep nesting':
      return deeplyNested(random.pick(['array', 'object'] as const));
    case 'too many items':
      return Array.from({ length: Math.min(((schema.maxItems as number | undefined) ?? 1_000) + 1, 20_000) }, (_, index) =>
        random.chance(0.5) ? index : `item ${index}`,
      );
    default:
      return JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
  }
}

/** The properties of an object schema, for choosing one to break. */
export function propertyNames(schema: JsonSchema): string[] {
  return Object.keys(schema.properties ?? {});
}
