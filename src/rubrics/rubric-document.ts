/**
 * LAMB's rubric JSON ("evaluaitor" format), pure: reading it by the rules of rubric-schema.ts with
 * every problem named by its path, the rules between fields the schema cannot state (unique ids),
 * and generating the ids a client left out. Rendering it (the markdown export and the evaluation
 * document for the model) is in rubric-rendering.ts. Nothing here touches HTTP or SQL, so the
 * pipeline and its tools may import it.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { FieldProblem } from '../validation/json-schema-problems.js';
import { byDocumentOrder, documentPosition, schemaProblems, type RubricProblem } from './rubric-problems.js';
import {
  RUBRIC_REFERENCE_PATTERN,
  type RubricCriterion,
  type RubricDocument,
  type RubricDraft,
  type RubricInput,
  type ScoringType,
} from './rubric-schema.js';

export {
  RUBRIC_LIMITS,
  RUBRIC_VISIBILITIES,
  SCORING_TYPES,
  type RubricCriterion,
  type RubricDocument,
  type RubricDraft,
  type RubricLevel,
  type RubricVisibility,
  type ScoringType,
} from './rubric-schema.js';

export interface ReadOptions {
  /** Strict (create, update): an unknown field is a problem. Lenient (import): unknown fields and rubricId are dropped. */
  strict: boolean;
  /** Top-level fields that are not rubric JSON but that the caller reads itself (e.g. `visibility`). */
  extraFields?: readonly string[];
  /** Prefixed to every problem's path, e.g. `rubric_data` for a LAMB rubric row. */
  root?: string;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A chosen id: null, missing and "" mean "generate one", as LAMB treats a falsy id. */
function chosenId(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

interface UniqueIdsCheck {
  /** The items whose ids must differ, at `path[index]`. */
  items: readonly unknown[];
  path: string;
  /** Whether the item at this path was read whole: an item refused for another reason is not compared. */
  isRead: (itemPath: string) => boolean;
  refused: (path: string) => boolean;
  /** How a repeat is reported, e.g. `repeats the level id "l"; …`. */
  repeat: (id: string) => string;
}

/** A repeated id among items read whole, reported where the list's items end in document order. */
function repeatedIdProblems(check: UniqueIdsCheck): RubricProblem[] {
  const listEnd = [...documentPosition(check.path.split(/[.[\]]+/).filter((segment) => segment !== '')), Number.POSITIVE_INFINITY];
  const seen = new Set<string>();
  const repeats: RubricProblem[] = [];
  check.items.forEach((item, index) => {
    const itemPath = `${check.path}[${index}]`;
    const id = isObject(item) ? chosenId(item.id) : undefined;
    if (id === undefined || !check.isRead(itemPath) || check.refused(`${itemPath}.id`)) return;
    if (seen.has(id)) repeats.push({ path: `${itemPath}.id`, message: check.repeat(id), position: listEnd });
    seen.add(id);
  });
  return repeats;
}

/**
 * Ids unique within their list: level ids within their criterion, criterion ids within the
 * rubric (LAMB's specification asks for the latter, its validator does not check it). As in
 * LAMB's reader, an item counts when its required fields were read, whatever its other problems.
 */
function uniqueIdProblems(value: unknown, problems: readonly RubricProblem[]): RubricProblem[] {
  const refused = (path: string): boolean => problems.some((problem) => problem.path === path);
  if (!isObject(value) || !Array.isArray(value.criteria) || refused('criteria')) return [];
  const criteria: readonly unknown[] = value.criteria;
  const fieldsRead = (itemPath: string, fields: readonly string[]): boolean =>
    !refused(itemPath) && fields.every((field) => !refused(`${itemPath}.${field}`));
  const levelRead = (levelPath: string): boolean => fieldsRead(levelPath, ['score', 'label', 'description']);
  const repeats: RubricProblem[] = [];
  const levelsOf = (criterion: unknown): readonly unknown[] =>
    isObject(criterion) && Array.isArray(criterion.levels) ? criterion.levels : [];
  criteria.forEach((criterion, index) => {
    const levelsPath = `criteria[${index}].levels`;
    if (refused(levelsPath)) return;
    repeats.push(
      ...repeatedIdProblems({
        items: levelsOf(criterion),
        path: levelsPath,
        isRead: levelRead,
        refused,
        repeat: (id) => `repeats the level id "${id}"; level ids must be unique within their criterion.`,
      }),
    );
  });
  repeats.push(
    ...repeatedIdProblems({
      items: criteria,
      path: 'criteria',
      isRead: (criterionPath) =>
        fieldsRead(criterionPath, ['name', 'description', 'weight', 'levels']) &&
        levelsOf(criteria[Number(/\[(\d+)\]$/.exec(criterionPath)?.[1])]).every((_level, index) =>
          levelRead(`${criterionPath}.levels[${index}]`),
        ),
      refused,
      repeat: (id) => `repeats the criterion id "${id}"; criterion ids must be unique within the rubric.`,
    }),
  );
  return repeats;
}

/** The path a client reads: relative paths below `root`, the whole body as `(body)` when there is no root. */
function fullPath(root: string, relative: string): string {
  if (root === '') return relative === '' ? '(body)' : relative;
  if (relative === '') return root;
  return relative.startsWith('[') ? `${root}${relative}` : `${root}.${relative}`;
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

/** The draft of a rubric that obeys the schema: known fields only, ids and orders settled, the title trimmed. */
function draftOf(input: RubricInput, strict: boolean): RubricDraft {
  // An import always gets a new id, so whatever it carried is not read at all.
  const rubricId = strict ? chosenId(input.rubricId) : undefined;
  // The server keeps the timestamps; whatever a client sent for them is replaced.
  const { createdAt: _createdAt, modifiedAt: _modifiedAt, ...metadata } = input.metadata ?? {};
  const criteria = input.criteria.map((criterion) => {
    const id = chosenId(criterion.id);
    const levels = criterion.levels.map((level) => {
      const levelId = chosenId(level.id);
      const { score, label, description } = level;
      return {
        ...(levelId !== undefined && { id: levelId }),
        score,
        label,
        description,
        ...(level.order != null && { order: level.order }),
      };
    });
    const { name, description, weight } = criterion;
    return {
      ...(id !== undefined && { id }),
      name,
      description,
      weight,
      ...(criterion.order != null && { order: criterion.order }),
      levels,
    };
  });
  return {
    ...(rubricId !== undefined && { rubricId }),
    title: input.title.trim(),
    description: input.description ?? '',
    metadata,
    criteria,
    scoringType: input.scoringType satisfies ScoringType,
    maxScore: input.maxScore,
  };
}

/**
 * Reads a rubric in LAMB's JSON; throws 400 invalid_body listing every problem with its path
 * when it breaks LAMB's rules. The result may lack rubricId and criterion and level ids; the
 * timestamps in metadata are dropped (the server sets them, see completeRubric).
 */
export function readRubricDraft(value: unknown, options: ReadOptions): RubricDraft {
  const found = schemaProblems(value, { strict: options.strict, extraFields: options.extraFields ?? [] });
  const problems = [...found, ...uniqueIdProblems(value, found)].sort(byDocumentOrder);
  const root = options.root ?? '';
  throwProblems(
    problems.map((problem) => {
      const path = fullPath(root, problem.path);
      return { path, message: `"${path}" ${problem.message}` };
    }),
  );
  return draftOf(value as RubricInput, options.strict);
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
  const criteria = draft.criteria.map((criterion, criterionIndex): RubricCriterion => {
    const id =
      criterion.id ?? freeId(criterionIds, (attempt) => `criterion-${criterionIndex + 1}${attempt === 0 ? '' : `-${attempt + 1}`}`);
    const levelIds = new Set(criterion.levels.flatMap((level) => (level.id === undefined ? [] : [level.id])));
    const levels = criterion.levels.map((level, levelIndex) => ({
      ...level,
      id: level.id ?? freeId(levelIds, (attempt) => `${id}-level-${levelIndex + 1}${attempt === 0 ? '' : `-${attempt + 1}`}`),
    }));
    return { ...criterion, id, levels };
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
