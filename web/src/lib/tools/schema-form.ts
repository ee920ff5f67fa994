/**
 * Turns a tool's config JSON Schema (as GET /lamb/v1/completions/tools answers with it) into the
 * fields of a form, so a tool installed tomorrow gets its card without web code. Four property
 * names are ids the teacher should never type: `collections` (knowledge bases), `rubric_id`,
 * `file_path` and `assistant_id` get pickers that show names and store ids. The names are the
 * ones the tools share (src/tools/*.ts), so recognising them needs no annotation on the server.
 *
 * Keywords this module does not understand are reported by `unsupportedKeywords`, and the unit
 * test runs it over every registered tool, so a tool that starts using a new construct fails there.
 */

export type JsonSchema = Record<string, unknown>;
export type PickerKind = 'knowledge_bases' | 'rubric' | 'file' | 'assistant';

interface FieldBase {
  /** The property name. */
  key: string;
  /** Where the value sits below the config: `top_k`, `options.depth`, `items[2].name`. */
  path: string;
  required: boolean;
  description: string | undefined;
  defaultValue: unknown;
}

export interface TextFieldDescription extends FieldBase {
  kind: 'text';
  format: string | undefined;
  minLength: number | undefined;
  maxLength: number | undefined;
}

export interface NumberFieldDescription extends FieldBase {
  kind: 'number';
  integer: boolean;
  minimum: number | undefined;
  maximum: number | undefined;
}

export interface BooleanFieldDescription extends FieldBase {
  kind: 'boolean';
}

export interface ChoiceFieldDescription extends FieldBase {
  kind: 'choice';
  options: string[];
}

/** A list of plain values (strings, numbers or choices), one input per value. */
export interface ValueListFieldDescription extends FieldBase {
  kind: 'value_list';
  item: 'text' | 'number' | 'choice';
  options: string[];
  minItems: number | undefined;
  maxItems: number | undefined;
}

/** A list of objects, one group of fields per item. */
export interface GroupListFieldDescription extends FieldBase {
  kind: 'group_list';
  fields: FieldDescription[];
  itemSchema: JsonSchema;
  minItems: number | undefined;
  maxItems: number | undefined;
}

/** A nested object, shown as a fieldset. */
export interface GroupFieldDescription extends FieldBase {
  kind: 'group';
  fields: FieldDescription[];
}

export interface PickerFieldDescription extends FieldBase {
  kind: 'picker';
  picker: PickerKind;
  multiple: boolean;
}

export type FieldDescription =
  | TextFieldDescription
  | NumberFieldDescription
  | BooleanFieldDescription
  | ChoiceFieldDescription
  | ValueListFieldDescription
  | GroupListFieldDescription
  | GroupFieldDescription
  | PickerFieldDescription;

const PICKERS: Readonly<Record<string, PickerKind>> = {
  collections: 'knowledge_bases',
  rubric_id: 'rubric',
  file_path: 'file',
  assistant_id: 'assistant',
};

/** Keywords the form reads, or that only constrain values (the server checks those). */
const UNDERSTOOD_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'default',
  'description',
  'title',
  'format',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

/** The first type a schema allows besides null: `['string', 'integer']` is edited as a string. */
export function primaryType(schema: JsonSchema): string | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((entry): entry is string => typeof entry === 'string' && entry !== 'null');
  if (Array.isArray(schema['enum'])) return 'string';
  return undefined;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function textOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function enumOptions(schema: JsonSchema): string[] {
  const values = schema['enum'];
  return Array.isArray(values) ? values.map(String) : [];
}

function propertiesOf(schema: JsonSchema): [string, JsonSchema][] {
  const properties = schema['properties'];
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, JsonSchema>);
}

function requiredOf(schema: JsonSchema): Set<string> {
  const required = schema['required'];
  return new Set(Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : []);
}

function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

function listField(base: FieldBase, schema: JsonSchema): FieldDescription {
  const items = (schema['items'] ?? {}) as JsonSchema;
  const limits = { minItems: numberOrUndefined(schema['minItems']), maxItems: numberOrUndefined(schema['maxItems']) };
  if (primaryType(items) === 'object') {
    return { ...base, kind: 'group_list', fields: describeFields(items, ''), itemSchema: items, ...limits };
  }
  const options = enumOptions(items);
  const itemType = primaryType(items);
  const item = options.length > 0 ? 'choice' : itemType === 'number' || itemType === 'integer' ? 'number' : 'text';
  return { ...base, kind: 'value_list', item, options, ...limits };
}

function describeField(key: string, schema: JsonSchema, path: string, required: boolean): FieldDescription {
  const base: FieldBase = {
    key,
    path,
    required,
    description: textOrUndefined(schema['description']),
    defaultValue: schema['default'],
  };
  const type = primaryType(schema);
  const picker = PICKERS[key];
  if (picker !== undefined) return { ...base, kind: 'picker', picker, multiple: type === 'array' };
  if (enumOptions(schema).length > 0) return { ...base, kind: 'choice', options: enumOptions(schema) };
  if (type === 'boolean') return { ...base, kind: 'boolean' };
  if (type === 'number' || type === 'integer') {
    return {
      ...base,
      kind: 'number',
      integer: type === 'integer',
      minimum: numberOrUndefined(schema['minimum']),
      maximum: numberOrUndefined(schema['maximum']),
    };
  }
  if (type === 'array') return listField(base, schema);
  if (type === 'object') return { ...base, kind: 'group', fields: describeFields(schema, path) };
  return {
    ...base,
    kind: 'text',
    format: textOrUndefined(schema['format']),
    minLength: numberOrUndefined(schema['minLength']),
    maxLength: numberOrUndefined(schema['maxLength']),
  };
}

/** The fields of an object schema, in the order the schema declares them; `parentPath` prefixes their paths. */
export function describeFields(schema: JsonSchema, parentPath = ''): FieldDescription[] {
  const required = requiredOf(schema);
  return propertiesOf(schema).map(([key, property]) => describeField(key, property, childPath(parentPath, key), required.has(key)));
}

/** Every keyword anywhere in the schema the form does not understand, as `path: keyword`. */
export function unsupportedKeywords(schema: JsonSchema, where = '(config)'): string[] {
  const own = Object.keys(schema)
    .filter((keyword) => !UNDERSTOOD_KEYWORDS.has(keyword))
    .map((keyword) => `${where}: ${keyword}`);
  const nested = propertiesOf(schema).flatMap(([key, property]) => unsupportedKeywords(property, `${where}.${key}`));
  const items = schema['items'];
  const ofItems = typeof items === 'object' && items !== null ? unsupportedKeywords(items as JsonSchema, `${where}[]`) : [];
  return [...own, ...nested, ...ofItems];
}

/** A new config: every default the schema declares, and nested required objects filled the same way. */
export function initialConfig(schema: JsonSchema): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const required = requiredOf(schema);
  for (const [key, property] of propertiesOf(schema)) {
    if (property['default'] !== undefined) config[key] = structuredClone(property['default']);
    else if (primaryType(property) === 'object' && required.has(key)) config[key] = initialConfig(property);
  }
  return config;
}
