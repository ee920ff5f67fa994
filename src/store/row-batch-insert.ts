/**
 * Many rows into one table with few distinct statements, for the full-text index's writes and the
 * rows an upload and an ingestion batch write a hundred at a time (documents, their texts, jobs,
 * audit entries, chunks).
 *
 * Kysely builds a multi-row insert value by value and compiles it again on every call, and each new
 * row count is a new statement to prepare, for the tens of postings of every chunk. Here the SQL
 * text of a table shape and row count is made once (bench/full-text-index-writes.bench.ts: the
 * index writes 1.5 to 1.9 times faster on PostgreSQL; on SQLite its own B-tree work dominates
 * either way). For 100 document rows of 13 columns on PostgreSQL, a statement cost 2.1 to 2.3 ms of
 * the server's CPU and 0.7 to 1.0 ms of Merino's as Kysely's `values` list of 1,300 parameters, and
 * 1.1 to 1.2 and 0.3 to 0.5 ms through `unnest` (300 statements a round, six alternating rounds). SQLite gets statements of a few fixed sizes
 * (powers of four up to STATEMENT_ROWS_MAXIMUM), so the connection's statement cache keeps them all
 * prepared; PostgreSQL gets one statement whatever the count, its columns passed as arrays through
 * `unnest`. Values are always bound parameters, never spliced into the text.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { CompiledQuery, type QueryExecutor, type QueryResult } from 'kysely';
import { dialectOf } from './dialect.js';
import { markForPreparing } from './postgres-prepared-statements.js';

/** What the batch needs of a database handle or a transaction on it, of any schema. */
interface RowWriter {
  getExecutor(): QueryExecutor;
  executeQuery<Row>(query: CompiledQuery<Row>): Promise<QueryResult<Row>>;
}

/** A table's columns as one batch writes them. Names and types are the code's own, never input. */
export interface RowBatchShape {
  table: string;
  columns: readonly string[];
  /** Each column's PostgreSQL type, for the array `unnest` reads it from. */
  postgresTypes: readonly string[];
  /** What follows the rows, such as an `on conflict` clause; the same text in both dialects. */
  suffix?: string;
}

/** Rows per SQLite statement at most: 256 rows of 5 columns are 1,280 parameters, far below SQLite's limit. */
const STATEMENT_ROWS_MAXIMUM = 256;
/** Rows written between two turns of the event loop: better-sqlite3 runs each statement synchronously. */
const ROWS_BETWEEN_TURNS = 1024;

const statementTexts = new Map<string, string>();

/** What follows the rows: the shape's suffix, then `returning id` when the ids are asked for. */
function tailOf(shape: RowBatchShape, returningIds: boolean): string {
  const parts = [shape.suffix, returningIds ? 'returning id' : undefined].filter((part) => part !== undefined);
  return parts.length === 0 ? '' : ` ${parts.join(' ')}`;
}

/** What tells one shape's statement text from another's, in either dialect. */
function shapeKey(shape: RowBatchShape, returningIds: boolean): string {
  return `${shape.table}(${shape.columns.join(',')})${shape.suffix ?? ''}${returningIds ? ' returning' : ''}`;
}

function sqliteText(shape: RowBatchShape, rowCount: number, returningIds: boolean): string {
  const key = `sqlite ${shapeKey(shape, returningIds)} #${rowCount}`;
  let text = statementTexts.get(key);
  if (text === undefined) {
    const row = `(${shape.columns.map(() => '?').join(', ')})`;
    text = `insert into ${shape.table} (${shape.columns.join(', ')}) values ${Array<string>(rowCount).fill(row).join(', ')}${tailOf(shape, returningIds)}`;
    statementTexts.set(key, text);
  }
  return text;
}

/** One text per shape, prepared on each connection (postgres-prepared-statements.ts): a batch's inserts run again and again. */
function postgresText(shape: RowBatchShape, returningIds: boolean): string {
  const key = `postgres ${shapeKey(shape, returningIds)}`;
  let text = statementTexts.get(key);
  if (text === undefined) {
    const arrays = shape.postgresTypes.map((type, index) => `$${index + 1}::${type}[]`).join(', ');
    text = `insert into ${shape.table} (${shape.columns.join(', ')}) select * from unnest(${arrays})${tailOf(shape, returningIds)}`;
    statementTexts.set(key, text);
    markForPreparing(text);
  }
  return text;
}

/** The largest fixed statement size that `remaining` rows fill: 256, 64, 16, 4 or 1. */
function statementRows(remaining: number): number {
  let size = STATEMENT_ROWS_MAXIMUM;
  while (size > remaining) size /= 4;
  return size;
}

async function insertOnSqlite(db: RowWriter, shape: RowBatchShape, values: readonly unknown[], ids?: number[]): Promise<void> {
  const width = shape.columns.length;
  const rowCount = values.length / width;
  let sinceTurn = 0;
  for (let start = 0; start < rowCount;) {
    const size = statementRows(rowCount - start);
    const query = CompiledQuery.raw(sqliteText(shape, size, ids !== undefined), values.slice(start * width, (start + size) * width));
    const result = await db.executeQuery<{ id: number }>(query);
    if (ids !== undefined) for (const row of result.rows) ids.push(row.id);
    start += size;
    sinceTurn += size;
    if (sinceTurn >= ROWS_BETWEEN_TURNS && start < rowCount) {
      sinceTurn = 0;
      await yieldToEventLoop();
    }
  }
}

/**
 * Inserts rows into `shape.table`: `values` holds them one after another, each a value per column
 * of `shape` in its order. Flat, because the index writes millions of values: building an array
 * per row took a fifth to a quarter of its writes' time at 64 chunks a transaction
 * (bench/full-text-index-writes.bench.ts).
 */
export async function insertRowBatch(db: RowWriter, shape: RowBatchShape, values: readonly unknown[]): Promise<void> {
  await insertRows(db, shape, values);
}

/**
 * Inserts rows as insertRowBatch does, into a table with a generated `id`, and answers the new ids
 * in ascending order: the order the rows were given, as serial ids rise as rows go in (RETURNING's
 * own order is not promised).
 */
export async function insertRowBatchReturningIds(db: RowWriter, shape: RowBatchShape, values: readonly unknown[]): Promise<number[]> {
  const ids: number[] = [];
  await insertRows(db, shape, values, ids);
  return ids.sort((left, right) => left - right);
}

async function insertRows(db: RowWriter, shape: RowBatchShape, values: readonly unknown[], ids?: number[]): Promise<void> {
  const width = shape.columns.length;
  if (values.length % width !== 0) throw new Error(`${values.length} values are not whole rows of ${width} columns`);
  if (values.length === 0) return;
  if (dialectOf(db) === 'sqlite') return insertOnSqlite(db, shape, values, ids);
  const columns = shape.columns.map((_, column) => arrayLiteral(values, { column, width }));
  const result = await db.executeQuery<{ id: number }>(CompiledQuery.raw(postgresText(shape, ids !== undefined), columns));
  if (ids !== undefined) for (const row of result.rows) ids.push(row.id);
}

/** Where one column's values sit in a flat list of rows. */
interface ColumnPlace {
  column: number;
  width: number;
}

/**
 * One column's values as a PostgreSQL array literal (`{1,2,"a"}`), made here rather than by pg: for
 * a JavaScript array, pg quotes every element, runs two regular expressions over it and grows the
 * literal a piece at a time. That was a third of all a JSON ingestion run on PostgreSQL allocated
 * (162 of 492 MB, sampled with the heap profiler over 4,900 documents), and so of its garbage
 * collection. The postings of 256 abstracts (7,700 rows) took 15 to 16 ms of CPU that way and 1.5 to
 * 1.8 ms this way. The text goes to PostgreSQL as a bound parameter, like any other value.
 */
function arrayLiteral(values: readonly unknown[], place: ColumnPlace): string {
  const elements = new Array<string>(values.length / place.width);
  for (let row = 0, index = place.column; index < values.length; row += 1, index += place.width)
    elements[row] = arrayElement(values[index]);
  return `{${elements.join(',')}}`;
}

const QUOTED_IN_ARRAYS = /["\\]/;

/** An element of an array literal: numbers as they are, text always quoted (so "NULL" and "" stay text), null as NULL. */
function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value !== 'string') throw new TypeError(`a row batch holds numbers, text and nulls, not ${typeof value}`);
  return QUOTED_IN_ARRAYS.test(value) ? `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"` : `"${value}"`;
}
