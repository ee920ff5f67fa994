/**
 * LAMB's rubric JSON ("evaluaitor" format), pure: reading and validating it with every problem
 * named by its path, and generating the ids a client left out. Rendering it (the markdown export
 * and the evaluation document for the model) is in rubric-rendering.ts. Nothing here touches HTTP
 * or SQL, so the pipeline and its tools may import it.
 *
 * The shape (LAMB's rubric_data):
 *   { rubricId, title, description, metadata: {subject?, gradeLevel?, createdAt, modifiedAt, author?,
 *     version?, tags?}, criteria: [{id, name, description, weight, order?, levels: [{id, score,
 *     label, description, order?}]}], scoringType: points|percentage|holistic|single-point|checklist,
 *     maxScore }
 *
 * LAMB's rules, kept: title, criteria, scoringType and maxScore are required; at least one
 * criterion; each criterion has a non-empty name and description, a weight of 0 or more and at
 * least two levels; each level has a numeric score and a non-empty label and description; level
 * ids are unique within their criterion; `order` is a whole number of 0 or more; maxScore is
 * positive; metadata's subject and gradeLevel are strings (or null), author and version strings,
 * tags an array of strings; a rubricId has at least 10 characters. Added here: criterion ids are
 * unique within the rubric (LAMB's specification asks for it, its validator does not check), and
 * lengths and counts are bounded.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { FieldProblem } from '../validation/json-schema-problems.js';

export const SCORING_TYPES = ['points', 'percentage', 'holistic', 'single-point', 'checklist'] as const;
export type ScoringType = (typeof SCORING_TYPES)[number];

export const RUBRIC_VISIBILITIES = ['private', 'organization'] as const;
export type RubricVisibility = (typeof RUBRIC_VISIBILITIES)[number];

/** LAMB requires at least 10 characters; letters, digits and `. _ : ~ -` keep it safe in a URL path and a status line. */
export const RUBRIC_ID_PATTERN = /^[\p{L}\p{N}._:~-]{10,200}$/u;
/** The same alphabet without the length rule: what a tool config or a lookup may name (LAMB's old integer ids become short strings). */
export const RUBRIC_REFERENCE_PATTERN = /^[\p{L}\p{N}._:~-]{1,200}$/u;

export const RUBRIC_LIMITS = {
  titleLength: 200,
  /** LAMB's create request caps the description at 2,000 characters. */
  descriptionLength: 2_000,
  criteria: 50,
  levelsPerCriterion: 20,
  nameLength: 200,
  textLength: 5_000,
  idLength: 100,
} as const;

export interface RubricLevel {
  id: string;
  score: number;
  label: string;
  description: string;
  order?: number;
}

export interface RubricCriterion {
  id: string;
  name: string;
  description: string;
  weight: number;
  order?: number;
  levels: RubricLevel[];
}

export interface RubricMetadata {
  subject?: string | null;
  gradeLevel?: string | null;
  createdAt: string;
  modifiedAt: string;
  author?: string;
  version?: string;
  tags?: string[];
  /** LAMB's metadata is an open object; other keys are kept as sent. */
  [key: string]: unknown;
}

/** A complete rubric, as stored and exported: LAMB's rubric JSON. */
export interface RubricDocument {
  rubricId: string;
  title: string;
  description: string;
  metadata: RubricMetadata;
  criteria: RubricCriterion[];
  scoringType: ScoringType;
  maxScore: number;
}

/** A validated rubric that may still lack its ids and timestamps. */
export interface RubricDraft {
  rubricId?: string;
  title: string;
  description: string;
  metadata: Record<string, unknown>;
  criteria: Array<Omit<RubricCriterion, 'id' | 'levels'> & { id?: string; levels: Array<Omit<RubricLevel, 'id'> & { id?: string }> }>;
  scoringType: ScoringType;
  maxScore: number;
}

export interface ReadOptions {
  /** Strict (create, update): an unknown field is a problem. Lenient (import): unknown fields and rubricId are dropped. */
  strict: boolean;
  /** Top-level fields that are not rubric JSON but that the caller reads itself (e.g. `visibility`). */
  extraFields?: readonly string[];
  /** Prefixed to every problem's path, e.g. `rubric_data` for a LAMB rubric row. */
  root?: string;
}

const TOP_LEVEL_FIELDS = ['rubricId', 'title', 'description', 'metadata', 'criteria', 'scoringType', 'maxScore'] as const;
const CRITERION_FIELDS = ['id', 'name', 'description', 'weight', 'order', 'levels'] as const;
const LEVEL_FIELDS = ['id', 'score', 'label', 'description', 'order'] as const;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Collects problems with the paths clients write (`criteria[1].levels[0].label`). */
class Problems {
  readonly list: FieldProblem[] = [];

  constructor(private readonly root: string) {}

  path(relative: string): string {
    if (this.root === '') return relative === '' ? '(body)' : relative;
    if (relative === '') return this.root;
    return relative.startsWith('[') ? `${this.root}${relative}` : `${this.root}.${relative}`;
  }

  add(relative: string, message: string): void {
    const path = this.path(relative);
    this.list.push({ path, message: `"${path}" ${message}` });
  }
}

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

function readText(
  problems: Problems,
  object: JsonObject,
  path: string,
  key: string,
  options: { required: boolean; maxLength: number; nonEmpty: boolean },
): string | undefined {
  const value = object[key];
  const where = child(path, key);
  if (value === undefined) {
    if (options.required) problems.add(where, 'is required.');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(where, `must be a string, not ${describeType(value)}.`);
    return undefined;
  }
  if (options.nonEmpty && value.trim() === '') {
    problems.add(where, 'must not be empty.');
    return undefined;
  }
  if (value.length > options.maxLength) {
    problems.add(where, `must be at most ${options.maxLength} characters long.`);
    return undefined;
  }
  return value;
}

function readNumber(
  problems: Problems,
  object: JsonObject,
  path: string,
  key: string,
  rule: { minimum?: number; positive?: boolean },
): number | undefined {
  const value = object[key];
  const where = child(path, key);
  if (value === undefined) {
    problems.add(where, 'is required.');
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    problems.add(where, `must be a number, not ${describeType(value)}.`);
    return undefined;
  }
  if (rule.positive === true && value <= 0) {
    problems.add(where, 'must be a positive number.');
    return undefined;
  }
  if (rule.minimum !== undefined && value < rule.minimum) {
    problems.add(where, `must be ${rule.minimum} or more.`);
    return undefined;
  }
  return value;
}

function readOrder(problems: Problems, object: JsonObject, path: string): number | undefined {
  const value = object.order;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    problems.add(child(path, 'order'), 'must be a whole number of 0 or more.');
    return undefined;
  }
  return value;
}

/** An id the client chose; null, missing or "" mean "generate one" (as LAMB treats a falsy id). */
function readId(problems: Problems, object: JsonObject, path: string): string | undefined {
  const value = object.id;
  if (value === undefined || value === null || value === '') return undefined;
  const where = child(path, 'id');
  if (typeof value !== 'string' || value.trim() === '') {
    problems.add(where, `must be a non-empty string, not ${describeType(value)}.`);
    return undefined;
  }
  if (value.length > RUBRIC_LIMITS.idLength) {
    problems.add(where, `must be at most ${RUBRIC_LIMITS.idLength} characters long.`);
    return undefined;
  }
  return value;
}

function checkKnownFields(problems: Problems, object: JsonObject, path: string, known: readonly string[], strict: boolean): void {
  if (!strict) return;
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) problems.add(child(path, key), 'is not a field of a rubric.');
  }
}

function readMetadata(problems: Problems, value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) {
    problems.add('metadata', `must be an object, not ${describeType(value)}.`);
    return {};
  }
  for (const key of ['subject', 'gradeLevel'] as const) {
    const field = value[key];
    if (field !== undefined && field !== null && typeof field !== 'string')
      problems.add(child('metadata', key), `must be a string or null, not ${describeType(field)}.`);
  }
  for (const key of ['author', 'version'] as const) {
    const field = value[key];
    if (field !== undefined && typeof field !== 'string')
      problems.add(child('metadata', key), `must be a string, not ${describeType(field)}.`);
  }
  const tags = value.tags;
  if (tags !== undefined) {
    if (!Array.isArray(tags)) problems.add('metadata.tags', `must be an array of strings, not ${describeType(tags)}.`);
    else
      tags.forEach((tag, index) => {
        if (typeof tag !== 'string') problems.add(`metadata.tags[${index}]`, `must be a string, not ${describeType(tag)}.`);
      });
  }
  // The server keeps the timestamps; whatever a client sent for them is replaced.
  const { createdAt: _createdAt, modifiedAt: _modifiedAt, ...rest } = value;
  return rest;
}

function readLevel(
  problems: Problems,
  value: unknown,
  path: string,
  strict: boolean,
): RubricDraft['criteria'][number]['levels'][number] | undefined {
  if (!isObject(value)) {
    problems.add(path, `must be an object (a performance level), not ${describeType(value)}.`);
    return undefined;
  }
  checkKnownFields(problems, value, path, LEVEL_FIELDS, strict);
  const id = readId(problems, value, path);
  const score = readNumber(problems, value, path, 'score', {});
  const label = readText(problems, value, path, 'label', { required: true, maxLength: RUBRIC_LIMITS.nameLength, nonEmpty: true });
  const description = readText(problems, value, path, 'description', {
    required: true,
    maxLength: RUBRIC_LIMITS.textLength,
    nonEmpty: true,
  });
  const order = readOrder(problems, value, path);
  if (score === undefined || label === undefined || description === undefined) return undefined;
  return { ...(id !== undefined && { id }), score, label, description, ...(order !== undefined && { order }) };
}

function readCriterion(problems: Problems, value: unknown, path: string, strict: boolean): RubricDraft['criteria'][number] | undefined {
  if (!isObject(value)) {
    problems.add(path, `must be an object (a criterion), not ${describeType(value)}.`);
    return undefined;
  }
  checkKnownFields(problems, value, path, CRITERION_FIELDS, strict);
  const id = readId(problems, value, path);
  const name = readText(problems, value, path, 'name', { required: true, maxLength: RUBRIC_LIMITS.nameLength, nonEmpty: true });
  const description = readText(problems, value, path, 'description', {
    required: true,
    maxLength: RUBRIC_LIMITS.textLength,
    nonEmpty: true,
  });
  const weight = readNumber(problems, value, path, 'weight', { minimum: 0 });
  const order = readOrder(problems, value, path);
  const levelsPath = child(path, 'levels');
  const rawLevels = value.levels;
  let levels: RubricDraft['criteria'][number]['levels'] | undefined;
  if (rawLevels === undefined) problems.add(levelsPath, 'is required.');
  else if (!Array.isArray(rawLevels)) problems.add(levelsPath, `must be an array of performance levels, not ${describeType(rawLevels)}.`);
  else if (rawLevels.length < 2) problems.add(levelsPath, `must hold at least 2 performance levels (it holds ${rawLevels.length}).`);
  else if (rawLevels.length > RUBRIC_LIMITS.levelsPerCriterion)
    problems.add(levelsPath, `must hold at most ${RUBRIC_LIMITS.levelsPerCriterion} performance levels.`);
  else {
    const read = rawLevels.map((level, index) => readLevel(problems, level, `${levelsPath}[${index}]`, strict));
    const seen = new Set<string>();
    read.forEach((level, index) => {
      if (level?.id === undefined) return;
      if (seen.has(level.id))
        problems.add(`${levelsPath}[${index}].id`, `repeats the level id "${level.id}"; level ids must be unique within their criterion.`);
      seen.add(level.id);
    });
    if (read.every((level) => level !== undefined)) levels = read as RubricDraft['criteria'][number]['levels'];
  }
  if (name === undefined || description === undefined || weight === undefined || levels === undefined) return undefined;
  return { ...(id !== undefined && { id }), name, description, weight, ...(order !== undefined && { order }), levels };
}

function readCriteria(problems: Problems, value: unknown, strict: boolean): RubricDraft['criteria'] | undefined {
  if (value === undefined) {
    problems.add('criteria', 'is required.');
    return undefined;
  }
  if (!Array.isArray(value)) {
    problems.add('criteria', `must be an array of criteria, not ${describeType(value)}.`);
    return undefined;
  }
  if (value.length === 0) {
    problems.add('criteria', 'must hold at least one criterion.');
    return undefined;
  }
  if (value.length > RUBRIC_LIMITS.criteria) {
    problems.add('criteria', `must hold at most ${RUBRIC_LIMITS.criteria} criteria.`);
    return undefined;
  }
  const read = value.map((criterion, index) => readCriterion(problems, criterion, `criteria[${index}]`, strict));
  const seen = new Set<string>();
  read.forEach((criterion, index) => {
    if (criterion?.id === undefined) return;
    if (seen.has(criterion.id))
      problems.add(`criteria[${index}].id`, `repeats the criterion id "${criterion.id}"; criterion ids must be unique within the rubric.`);
    seen.add(criterion.id);
  });
  return read.every((criterion) => criterion !== undefined) ? (read as RubricDraft['criteria']) : undefined;
}

function readRubricId(problems: Problems, value: unknown, where = 'rubricId'): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') {
    problems.add(where, `must be a string, not ${describeType(value)}.`);
    return undefined;
  }
  if (!RUBRIC_ID_PATTERN.test(value)) {
    problems.add(where, 'must be 10 to 200 letters, digits or the characters . _ : ~ - (leave it out and the server generates one).');
    return undefined;
  }
  return value;
}

/** Throws 400 invalid_body naming the first problem (param) and listing all of them (details.errors). */
export function throwProblems(problems: readonly FieldProblem[]): void {
  const first = problems[0];
  if (first)
    throw new AppError('invalid_body', first.message, {
      param: first.path === '(body)' ? undefined : first.path,
      details: { errors: problems },
    });
}

/**
 * Reads a rubric in LAMB's JSON; throws 400 invalid_body listing every problem with its path
 * when it breaks LAMB's rules. The result may lack rubricId and criterion and level ids; the
 * timestamps in metadata are dropped (the server sets them, see completeRubric).
 */
export function readRubricDraft(value: unknown, options: ReadOptions): RubricDraft {
  const problems = new Problems(options.root ?? '');
  if (!isObject(value)) {
    problems.add('', `must be a rubric object, not ${describeType(value)}.`);
    throwProblems(problems.list);
  }
  const object = value as JsonObject;
  checkKnownFields(problems, object, '', [...TOP_LEVEL_FIELDS, ...(options.extraFields ?? [])], options.strict);
  // An import always gets a new id, so whatever it carried is not read at all.
  const rubricId = options.strict ? readRubricId(problems, object.rubricId) : undefined;
  const rawTitle = readText(problems, object, '', 'title', { required: true, maxLength: RUBRIC_LIMITS.titleLength, nonEmpty: true });
  const description =
    readText(problems, object, '', 'description', { required: false, maxLength: RUBRIC_LIMITS.descriptionLength, nonEmpty: false }) ?? '';
  const metadata = readMetadata(problems, object.metadata);
  const criteria = readCriteria(problems, object.criteria, options.strict);
  const scoringType = object.scoringType;
  if (scoringType === undefined) problems.add('scoringType', `is required: one of ${SCORING_TYPES.join(', ')}.`);
  else if (!SCORING_TYPES.includes(scoringType as ScoringType)) problems.add('scoringType', `must be one of ${SCORING_TYPES.join(', ')}.`);
  const maxScore = readNumber(problems, object, '', 'maxScore', { positive: true });
  throwProblems(problems.list);
  return {
    ...(rubricId !== undefined && { rubricId }),
    title: rawTitle!.trim(),
    description,
    metadata,
    criteria: criteria!,
    scoringType: scoringType as ScoringType,
    maxScore: maxScore!,
  };
}

/** Checks one rubric id sent outside a document (a path or a config), naming `where` in the error. */
export function requireRubricReference(value: string, where: string): string {
  if (!RUBRIC_REFERENCE_PATTERN.test(value)) {
    throw new AppError('invalid_parameter', `"${where}" must be 1 to 200 letters, digits or the characters . _ : ~ -.`, { param: where });
  }
  return value;
}

/** The first of `candidates()` not in `taken`. */
function freeId(taken: Set<string>, candidate: (attempt: number) => string): string {
  for (let attempt = 0; ; attempt += 1) {
    const id = candidate(attempt);
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

export interface CompletionOptions {
  /** The rubric's id when the draft has none; a random UUID by default. */
  rubricId?: string;
  createdAt: string;
  modifiedAt: string;
}

/**
 * The stored document: the draft's rubricId (or options.rubricId, or a new UUID), ids for every
 * criterion (`criterion-<n>`) and level (`<criterion id>-level-<n>`) that has none, never
 * colliding with ids the client chose, and the timestamps in metadata.
 */
export function completeRubric(draft: RubricDraft, options: CompletionOptions): RubricDocument {
  const criterionIds = new Set(draft.criteria.flatMap((criterion) => (criterion.id === undefined ? [] : [criterion.id])));
  const criteria = draft.criteria.map((criterion, criterionIndex) => {
    const id =
      criterion.id ?? freeId(criterionIds, (attempt) => `criterion-${criterionIndex + 1}${attempt === 0 ? '' : `-${attempt + 1}`}`);
    const levelIds = new Set(criterion.levels.flatMap((level) => (level.id === undefined ? [] : [level.id])));
    const levels = criterion.levels.map((level, levelIndex) => ({
      ...level,
      id: level.id ?? freeId(levelIds, (attempt) => `${id}-level-${levelIndex + 1}${attempt === 0 ? '' : `-${attempt + 1}`}`),
    }));
    return { ...criterion, id, levels } as RubricCriterion;
  });
  return {
    rubricId: draft.rubricId ?? options.rubricId ?? randomUUID(),
    title: draft.title,
    description: draft.description,
    metadata: { ...draft.metadata, createdAt: options.createdAt, modifiedAt: options.modifiedAt },
    criteria,
    scoringType: draft.scoringType,
    maxScore: draft.maxScore,
  };
}
