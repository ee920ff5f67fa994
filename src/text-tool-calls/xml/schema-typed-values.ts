/**
 * Types the values of XML-style calls (Qwen3-Coder's `<parameter=…>`, GLM's `<arg_value>`), which
 * arrive as bare text, by the tool's JSON Schema: integers, numbers, booleans, null, arrays and
 * objects are read from the text; strings, undeclared parameters and text that fits no declared
 * type stay strings, so the tool's own validation can report a mismatch.
 */
import { parsePythonLiteral } from '../python/python-literals.js';

const INTEGER_PATTERN = /^[-+]?\d+$/;
const NUMBER_PATTERN = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * Repair: type names tools declare loosely, as the engines coerce them (`"float"` for `number`,
 * Python's `"dict"` for `object`…), mapped to the JSON Schema type they mean.
 */
const LOOSE_TYPE_NAMES: Readonly<Record<string, string>> = {
  float: 'number',
  double: 'number',
  decimal: 'number',
  int: 'integer',
  long: 'integer',
  bool: 'boolean',
  str: 'string',
  text: 'string',
  list: 'array',
  tuple: 'array',
  dict: 'object',
  map: 'object',
};

function jsonSchemaTypeName(declared: string): string {
  const lowered = declared.toLowerCase();
  return Object.hasOwn(LOOSE_TYPE_NAMES, lowered) ? LOOSE_TYPE_NAMES[lowered]! : lowered;
}

/** The JSON types a schema allows: its `type` (a name or a list) and those of its anyOf/oneOf branches. */
export function schemaTypes(schema: unknown): Set<string> {
  const types = new Set<string>();
  if (typeof schema !== 'object' || schema === null) return types;
  const record = schema as Record<string, unknown>;
  const declared = record['type'];
  for (const type of Array.isArray(declared) ? declared : [declared]) if (typeof type === 'string') types.add(jsonSchemaTypeName(type));
  for (const key of ['anyOf', 'oneOf']) {
    const branches = record[key];
    if (Array.isArray(branches)) for (const branch of branches) for (const type of schemaTypes(branch)) types.add(type);
  }
  return types;
}

/**
 * Repair: JSON written double-escaped (`[{\"id\": \"1\"}]`, as some serving stacks re-escape
 * it), read once as the inside of a JSON string and then as JSON. Only tried where the schema asks
 * for an object or array and the text reads as neither, so a string value is never changed.
 */
function doubleEscapedJson(text: string): { value: unknown } | undefined {
  if (!text.includes('\\"')) return undefined;
  try {
    const unescaped: unknown = JSON.parse(`"${text}"`);
    return typeof unescaped === 'string' ? { value: JSON.parse(unescaped) as unknown } : undefined;
  } catch {
    return undefined;
  }
}

function structured(text: string, wanted: 'object' | 'array'): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Models often write Python literals (single quotes, True) where JSON was asked for.
    const literal = parsePythonLiteral(text) ?? doubleEscapedJson(text);
    if (literal === undefined) return undefined;
    value = literal.value;
  }
  const isArray = Array.isArray(value);
  const fits = wanted === 'array' ? isArray : typeof value === 'object' && value !== null && !isArray;
  return fits ? { value } : undefined;
}

/** The value for one declared type, or undefined when the text does not read as that type. */
function readAs(type: string, text: string): { value: unknown } | undefined {
  switch (type) {
    case 'null':
      return /^(?:null|none)$/i.test(text) ? { value: null } : undefined;
    case 'boolean':
      return /^(?:true|false)$/i.test(text) ? { value: text.toLowerCase() === 'true' } : undefined;
    case 'integer': {
      const value = Number(text);
      return INTEGER_PATTERN.test(text) && Number.isSafeInteger(value) ? { value } : undefined;
    }
    case 'number':
      return NUMBER_PATTERN.test(text) ? { value: Number(text) } : undefined;
    case 'object':
    case 'array':
      return structured(text, type);
    default:
      return undefined;
  }
}

/** The order in which declared types are tried: the most specific reading wins, string last. */
const TYPE_ORDER = ['null', 'boolean', 'integer', 'number', 'object', 'array'];

/** `raw` typed by `schema`; strings keep their text exactly. */
export function typedValue(raw: string, schema: unknown): unknown {
  const types = schemaTypes(schema);
  if (types.size === 0 || (types.size === 1 && types.has('string'))) return raw;
  const text = raw.trim();
  for (const type of TYPE_ORDER) {
    if (!types.has(type)) continue;
    const read = readAs(type, text);
    if (read !== undefined) return read.value;
  }
  return raw;
}

/**
 * Removes the one line break models put after an opening tag and before a closing one
 * (`<parameter=path>\n/tmp/a\n</parameter>`), keeping any other whitespace the value has.
 */
export function trimTagLineBreaks(value: string): string {
  let start = 0;
  let end = value.length;
  if (value.startsWith('\r\n')) start = 2;
  else if (value.startsWith('\n')) start = 1;
  if (value.endsWith('\r\n') && end - 2 >= start) end -= 2;
  else if (value.endsWith('\n') && end - 1 >= start) end -= 1;
  return value.slice(start, end);
}
