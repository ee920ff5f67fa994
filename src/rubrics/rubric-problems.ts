/**
 * Checks a rubric against rubricSchema with ajv and turns ajv's errors into the problems a client
 * reads: one per field, worded by the rule's `problems`, named by the path clients write
 * (`criteria[1].levels[0].label`) and listed in document order. A field whose whole value is
 * refused (a criterion that is not an object, a criteria list that is too short) hides the
 * problems inside it, which would only repeat the same mistake.
 */
import type { ErrorObject } from 'ajv';
import { createAjv } from '../validation/create-ajv.js';
import { validatorOnFirstUse, type ValidatorOnFirstUse } from '../validation/validator-on-first-use.js';
import { describeAjvError } from '../validation/json-schema-problems.js';
import { rubricSchema } from './rubric-schema.js';

/** A problem with where it sits in the document, for sorting; paths are relative to the rubric. */
export interface RubricProblem {
  /** The field's path below the rubric, as clients write it; "" is the rubric itself. */
  path: string;
  message: string;
  /** Document order: each step's position in its object's `properties` (unknown fields first) or its array. */
  position: number[];
}

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  items?: Schema;
  problems?: Record<string, string>;
  type?: string | readonly string[];
};

/**
 * Keyword by keyword, the first that applies names a field's problem; this is the order LAMB's
 * reader checked them in (is it there, is it the right type, is it blank, is it too long).
 */
const KEYWORD_ORDER = [
  'required',
  'additionalProperties',
  'type',
  'pattern',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'enum',
];

/** Keywords not in KEYWORD_ORDER come last. */
function keywordRank(keyword: string): number {
  const rank = KEYWORD_ORDER.indexOf(keyword);
  return rank === -1 ? KEYWORD_ORDER.length : rank;
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The wording a rule has when its schema gives none. */
function commonWording(keyword: string, schema: Schema): string {
  switch (keyword) {
    case 'required':
      return 'is required.';
    case 'additionalProperties':
      return 'is not a field of a rubric.';
    case 'type':
      return `must be a ${String(schema.type)}, not {type}.`;
    case 'pattern':
      // The one pattern without its own wording is `\\S` (not blank).
      return 'must not be empty.';
    case 'maxLength':
      return 'must be at most {limit} characters long.';
    case 'minimum':
      return 'must be {limit} or more.';
    default:
      return 'is invalid.';
  }
}

function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .split('/')
        .slice(1)
        .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Where the field at `segments` sits in document order, for problems found outside the schema. */
export function documentPosition(segments: readonly string[]): number[] {
  return locate(segments).position;
}

/** The schema of the field at `segments`, and each step's position in document order. */
function locate(segments: readonly string[]): { schema: Schema | undefined; position: number[] } {
  let schema: Schema | undefined = rubricSchema;
  const position: number[] = [];
  for (const segment of segments) {
    if (schema?.items !== undefined && /^\d+$/.test(segment)) {
      position.push(Number(segment));
      schema = schema.items;
    } else {
      const known: string[] = Object.keys(schema?.properties ?? {});
      // Unknown fields come first, as a reader that checks them before the known ones lists them.
      position.push(known.indexOf(segment));
      schema = schema?.properties?.[segment];
    }
  }
  return { schema, position };
}

function toProblem(error: ErrorObject): RubricProblem & { keyword: string } {
  const segments = pointerSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const child =
    error.keyword === 'required'
      ? params.missingProperty
      : error.keyword === 'additionalProperties'
        ? params.additionalProperty
        : undefined;
  if (typeof child === 'string') segments.push(child);
  const { schema, position } = locate(segments);
  const ruleSchema: Schema =
    error.keyword === 'required' || error.keyword === 'additionalProperties' ? (schema ?? {}) : (error.parentSchema as Schema);
  const wording = ruleSchema.problems?.[error.keyword] ?? ruleSchema.problems?.any ?? commonWording(error.keyword, ruleSchema);
  const message = wording
    .replace('{type}', describeType(error.data))
    .replace('{limit}', String(params.limit))
    .replace('{count}', Array.isArray(error.data) ? String(error.data.length) : '');
  return { path: describeAjvError(error, '').path, message, position, keyword: error.keyword };
}

/** Whether `path` names a field inside the field `ancestor` names. */
function isInside(path: string, ancestor: string): boolean {
  if (ancestor === '') return path !== '';
  return path.length > ancestor.length && path.startsWith(ancestor) && (path[ancestor.length] === '.' || path[ancestor.length] === '[');
}

/** Orders problems as a reader walking the document meets them. */
export function byDocumentOrder(first: { position: readonly number[] }, second: { position: readonly number[] }): number {
  const length = Math.min(first.position.length, second.position.length);
  for (let index = 0; index < length; index += 1) {
    const difference = first.position[index]! - second.position[index]!;
    if (difference !== 0) return difference;
  }
  return first.position.length - second.position.length;
}

export interface SchemaCheckOptions {
  /** Strict: unknown fields are problems and rubricId is checked. Lenient: both are ignored. */
  strict: boolean;
  /** Top-level fields that are not rubric JSON but that the caller reads itself (e.g. `visibility`). */
  extraFields: readonly string[];
}

/** The schema for lenient reading: any field may be present, and rubricId is not read at all. */
function lenientSchema(schema: Schema): Schema {
  const { additionalProperties: _additional, properties, items, ...rest } = schema;
  return {
    ...rest,
    ...(properties !== undefined && {
      properties: Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => schema !== rubricSchema || name !== 'rubricId')
          .map(([name, property]) => [name, lenientSchema(property)]),
      ),
    }),
    ...(items !== undefined && { items: lenientSchema(items) }),
  };
}

// Lengths are counted in UTF-16 code units (`.length`), as LAMB's reader counted them; ajv counts
// code points unless told otherwise, with an option it warns is deprecated, hence the quiet logger.
const ajv = createAjv({ verbose: true, unicode: false, logger: { log: () => undefined, warn: () => undefined, error: console.error } });
ajv.addVocabulary(['problems']);
const validators: Record<'strict' | 'lenient', ValidatorOnFirstUse> = {
  strict: validatorOnFirstUse(() => ajv.compile(rubricSchema)),
  lenient: validatorOnFirstUse(() => ajv.compile(lenientSchema(rubricSchema as Schema))),
};

/** Every problem of the rubric against its schema, one per field, in document order. */
export function schemaProblems(value: unknown, options: SchemaCheckOptions): RubricProblem[] {
  const validate = validators[options.strict ? 'strict' : 'lenient'];
  if (validate(value)) return [];
  const all = (validate.errors ?? [])
    .map(toProblem)
    .filter(
      (problem) =>
        !(problem.keyword === 'additionalProperties' && problem.position.length === 1 && options.extraFields.includes(problem.path)),
    );
  const chosen = new Map<string, RubricProblem & { keyword: string }>();
  for (const problem of all) {
    const held = chosen.get(problem.path);
    if (held === undefined || keywordRank(problem.keyword) < keywordRank(held.keyword)) chosen.set(problem.path, problem);
  }
  const kept = [...chosen.values()];
  return kept
    .filter((problem) => !kept.some((other) => isInside(problem.path, other.path)))
    .sort(byDocumentOrder)
    .map(({ path, message, position }) => ({ path, message, position }));
}
