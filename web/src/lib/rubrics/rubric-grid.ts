/**
 * The rubric editor's grid: criteria are rows, performance levels are columns. A column holds a
 * level's label and score for every criterion; a cell holds one criterion's description of that
 * level (and the level id LAMB keeps per criterion, so an export re-imports with the same ids).
 * Pure functions over plain data: the page keeps the grid in its state and sends `bodyOf(grid)`.
 */
import type { Rubric, RubricBody } from '$lib/api/rubrics';

export const SCORING_TYPES = ['points', 'percentage', 'holistic', 'single-point', 'checklist'] as const;
export type ScoringType = (typeof SCORING_TYPES)[number];

/** The weight total the "percentage" scoring type asks for: weights are then the percentages themselves. */
export const PERCENTAGE_WEIGHT_TOTAL = 100;

export interface GridColumn {
  key: string;
  label: string;
  score: number;
}

export interface GridCell {
  levelId?: string;
  description: string;
}

export interface GridRow {
  key: string;
  id?: string;
  name: string;
  description: string;
  weight: number;
  /** One per column, in column order. */
  cells: GridCell[];
}

export interface RubricGrid {
  rubricId?: string;
  title: string;
  description: string;
  metadata: Record<string, unknown>;
  scoringType: ScoringType;
  maxScore: number;
  visibility: 'private' | 'organization';
  columns: GridColumn[];
  rows: GridRow[];
}

let nextKey = 0;
function freshKey(prefix: string): string {
  nextKey += 1;
  return `${prefix}-${nextKey}`;
}

/** A new rubric: one criterion and two levels, the fewest LAMB accepts, for the teacher to fill. */
export function newGrid(): RubricGrid {
  const columns = [
    { key: freshKey('column'), label: '', score: 2 },
    { key: freshKey('column'), label: '', score: 1 },
  ];
  return {
    title: '',
    description: '',
    metadata: {},
    scoringType: 'points',
    maxScore: 10,
    visibility: 'private',
    columns,
    rows: [emptyRow(columns.length)],
  };
}

function emptyRow(columnCount: number): GridRow {
  return {
    key: freshKey('row'),
    name: '',
    description: '',
    weight: 1,
    cells: Array.from({ length: columnCount }, () => ({ description: '' })),
  };
}

interface LevelLike {
  id?: unknown;
  label?: unknown;
  score?: unknown;
  description?: unknown;
}

function levelsOf(criterion: Record<string, unknown>): LevelLike[] {
  return Array.isArray(criterion.levels) ? (criterion.levels as LevelLike[]) : [];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const number = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** Whether every criterion has the same level labels and scores in the same order, as the grid shows them. */
export function levelsAgree(rubric: Pick<Rubric, 'criteria'>): boolean {
  const first = levelsOf(rubric.criteria[0] ?? {});
  return rubric.criteria.every((criterion) => {
    const levels = levelsOf(criterion);
    return (
      levels.length === first.length &&
      levels.every((level, index) => level.label === first[index]?.label && level.score === first[index]?.score)
    );
  });
}

/** The grid of a saved rubric, criteria and levels in `order` (then as listed); columns come from the first criterion. */
export function gridOf(rubric: Rubric): RubricGrid {
  const byOrder = <Item>(items: Item[]) =>
    items
      .map((item, index) => ({ item, index }))
      .sort((a, b) => number((a.item as { order?: unknown }).order) - number((b.item as { order?: unknown }).order) || a.index - b.index)
      .map((entry) => entry.item);
  const criteria = byOrder(rubric.criteria);
  const firstLevels = byOrder(levelsOf(criteria[0] ?? {}));
  const columns = firstLevels.map((level) => ({ key: freshKey('column'), label: text(level.label), score: number(level.score) }));
  const rows = criteria.map((criterion) => {
    const levels = byOrder(levelsOf(criterion));
    return {
      key: freshKey('row'),
      ...(typeof criterion.id === 'string' && { id: criterion.id }),
      name: text(criterion.name),
      description: text(criterion.description),
      weight: number(criterion.weight),
      cells: columns.map((_column, index) => {
        const level = levels[index];
        return { ...(typeof level?.id === 'string' && { levelId: level.id }), description: text(level?.description) };
      }),
    };
  });
  return {
    rubricId: rubric.rubricId,
    title: rubric.title,
    description: rubric.description,
    metadata: rubric.metadata,
    scoringType: rubric.scoringType,
    maxScore: rubric.maxScore,
    visibility: rubric.visibility,
    columns,
    rows,
  };
}

/** What create, update and preview take: LAMB's rubric JSON, each criterion and level with its `order` as shown. */
export function bodyOf(grid: RubricGrid): RubricBody {
  const { createdAt: _createdAt, modifiedAt: _modifiedAt, ...metadata } = grid.metadata;
  return {
    ...(grid.rubricId !== undefined && { rubricId: grid.rubricId }),
    title: grid.title,
    description: grid.description,
    metadata,
    scoringType: grid.scoringType,
    maxScore: grid.maxScore,
    visibility: grid.visibility,
    criteria: grid.rows.map((row, rowIndex) => ({
      ...(row.id !== undefined && { id: row.id }),
      name: row.name,
      description: row.description,
      weight: row.weight,
      order: rowIndex,
      levels: grid.columns.map((column, columnIndex) => {
        const cell = row.cells[columnIndex];
        return {
          ...(cell?.levelId !== undefined && { id: cell.levelId }),
          label: column.label,
          score: column.score,
          description: cell?.description ?? '',
          order: columnIndex,
        };
      }),
    })),
  };
}

export function addRow(grid: RubricGrid): void {
  grid.rows.push(emptyRow(grid.columns.length));
}

/** A new level at the end, scored one below the lowest (never below 0). */
export function addColumn(grid: RubricGrid): void {
  const lowest = Math.min(...grid.columns.map((column) => column.score));
  grid.columns.push({ key: freshKey('column'), label: '', score: Math.max(0, Number.isFinite(lowest) ? lowest - 1 : 0) });
  for (const row of grid.rows) row.cells.push({ description: '' });
}

export function removeRow(grid: RubricGrid, index: number): void {
  grid.rows.splice(index, 1);
}

export function removeColumn(grid: RubricGrid, index: number): void {
  grid.columns.splice(index, 1);
  for (const row of grid.rows) row.cells.splice(index, 1);
}

function moveItem(items: unknown[], from: number, to: number): boolean {
  if (to < 0 || to >= items.length || from === to) return false;
  const [item] = items.splice(from, 1);
  if (item === undefined) return false;
  items.splice(to, 0, item);
  return true;
}

export function moveRow(grid: RubricGrid, from: number, to: number): boolean {
  return moveItem(grid.rows, from, to);
}

/** Moves a level with its description in every criterion. */
export function moveColumn(grid: RubricGrid, from: number, to: number): boolean {
  if (!moveItem(grid.columns, from, to)) return false;
  for (const row of grid.rows) moveItem(row.cells, from, to);
  return true;
}

export function weightTotal(grid: RubricGrid): number {
  return Math.round(grid.rows.reduce((sum, row) => sum + (Number.isFinite(row.weight) ? row.weight : 0), 0) * 100) / 100;
}

/** Whether the weights break the scoring type's rule: with "percentage" they must total 100. */
export function weightsMustTotal(grid: RubricGrid): number | undefined {
  return grid.scoringType === 'percentage' ? PERCENTAGE_WEIGHT_TOTAL : undefined;
}
