/**
 * Many rows into one table with few distinct statements, for the full-text index's writes.
 *
 * Kysely builds a multi-row insert value by value and compiles it again on every call, and each new
 * row count is a new statement to prepare, for the tens of postings of every chunk. Here the SQL
 * text of a table shape and row count is made once (bench/full-text-index-writes.bench.ts: the
 * index writes 1.5 to 1.9 times faster on PostgreSQL; on SQLite its own B-tree work dominates
 * either way). SQLite gets statements of a few fixed sizes
 * (powers of four up to STATEMENT_ROWS_MAXIMUM), so the connection's statement cache keeps them all
 * prepared; PostgreSQL gets one statement whatever the count, its columns passed as arrays through
 * `unnest`. Values are always bound parameters, never spliced into the text.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { CompiledQuery, type QueryExecutor, type QueryResult } from 'kysely';
import { dialectOf } from './dialect.js';

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

function sqliteText(shape: RowBatchShape, rowCount: number): string {
  const key = `${shape.table}(${shape.columns.join(',')})${shape.suffix ?? ''}#${rowCount}`;
  let text = statementTexts.get(key);
  if (text === undefined) {
    const row = `(${shape.columns.map(() => '?').join(', ')})`;
    text = `insert into ${shape.table} (${shape.columns.join(', ')}) values ${Array<string>(rowCount).fill(row).join(', ')}${shape.suffix === undefined ? '' : ` ${shape.suffix}`}`;
    statementTexts.set(key, text);
  }
  return text;
}

function postgresText(shape: RowBatchShape): string {
  const arrays = shape.postgresTypes.map((type, index) => `$${index + 1}::${type}[]`).join(', ');
  const suffix = shape.suffix === undefined ? '' : ` ${shape.suffix}`;
  return `insert into ${shape.table} (${shape.columns.join(', ')}) select * from unnest(${arrays})${suffix}`;
}

/** The largest fixed statement size that `remaining` rows fill: 256, 64, 16, 4 or 1. */
function statementRows(remaining: number): number {
  let size = STATEMENT_ROWS_MAXIMUM;
  while (size > remaining) size /= 4;
  return size;
}

async function insertOnSqlite(db: RowWriter, shape: RowBatchShape, values: readonly unknown[]): Promise<void> {
  const width = shape.columns.length;
  const rowCount = values.length / width;
  let sinceTurn = 0;
  for (let start = 0; start < rowCount;) {
    const size = statementRows(rowCount - start);
    await db.executeQuery(CompiledQuery.raw(sqliteText(shape, size), values.slice(start * width, (start + size) * width)));
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
  const width = shape.columns.length;
  if (values.length % width !== 0) throw new Error(`${values.length} values are not whole rows of ${width} columns`);
  if (values.length === 0) return;
  if (dialectOf(db) === 'sqlite') return insertOnSqlite(db, shape, values);
  const columns = shape.columns.map((_, column) => {
    const columnValues: unknown[] = [];
    for (let index = column; index < values.length; index += width) columnValues.push(values[index]);
    return columnValues;
  });
  await db.executeQuery(CompiledQuery.raw(postgresText(shape), columns));
}
