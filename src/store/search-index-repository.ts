/**
 * The write side of full-text search (docs/knowledge-bases.md): each chunk's analysed terms go
 * into `kb_postings` with their BM25F field-weighted frequency, and its knowledge base's totals
 * (chunk count, total weighted length) move with them, so BM25 statistics are the knowledge base's
 * own (a term's document frequency is the length of its posting list). Chunks are indexed as they
 * are inserted; the reindex job (re)builds a knowledge base's index in batches after migration 0094
 * or a change of its `search_language`. Deleting chunks unindexes them by trigger (migration 0094),
 * whatever deletes them. Each indexed chunk keeps its list of distinct terms (`index_terms`,
 * migration 0098), by which its postings are found again by their own key.
 */
import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect.js';
import { analyseChunk, textAnalyzer, type AnalysedChunk } from './text-analysis.js';
import { insertRowBatch, type RowBatchShape } from './row-batch-insert.js';
import type { Database } from './schema.js';

const POSTINGS: RowBatchShape = {
  table: 'kb_postings',
  columns: ['knowledge_base_id', 'term', 'chunk_id', 'frequency', 'length'],
  postgresTypes: ['integer', 'text', 'integer', 'double precision', 'double precision'],
};

/** A term's posting in insertPostings' flat lists: chunk id, frequency, length. */
const POSTING_VALUES = 3;

/** The language each knowledge base's chunks are analysed in, by id. */
export async function searchLanguagesOf(db: Kysely<Database>, knowledgeBaseIds: readonly number[]): Promise<Map<number, string>> {
  if (knowledgeBaseIds.length === 0) return new Map();
  const rows = await db.selectFrom('knowledge_bases').select(['id', 'search_language']).where('id', 'in', knowledgeBaseIds).execute();
  return new Map(rows.map((row) => [row.id, row.search_language]));
}

interface IndexTotalsChange {
  chunks: number;
  length: number;
  /** Absent only while migration 0094 builds the index, before migration 0096 adds the title-field totals. */
  titles?: { chunks: number; length: number };
  /** False only while migration 0094 builds the index, before migration 0097 adds the index version. */
  versioned: boolean;
}

/** Adds (or, with negative figures, takes away) indexed chunks and their lengths to a knowledge base's BM25 totals, and raises its index version. */
async function moveIndexTotals(db: Kysely<Database>, knowledgeBaseId: number, change: IndexTotalsChange): Promise<void> {
  const { titles } = change;
  await db
    .updateTable('knowledge_bases')
    .set((eb) => ({
      index_chunk_count: eb('index_chunk_count', '+', change.chunks),
      index_length_total: eb('index_length_total', '+', change.length),
      ...(titles === undefined
        ? {}
        : {
            index_titled_chunk_count: eb('index_titled_chunk_count', '+', titles.chunks),
            index_title_length_total: eb('index_title_length_total', '+', titles.length),
          }),
      ...(change.versioned ? { index_version: eb('index_version', '+', 1) } : {}),
    }))
    .where('id', '=', knowledgeBaseId)
    .execute();
}

/** Whether the store has the columns of migrations 0096 (title-field lengths), 0097 (index version) and 0098 (term lists) yet: migration 0094 indexes existing chunks before all three. */
export interface IndexColumns {
  titleLengths: boolean;
  version: boolean;
  termLists: boolean;
}

const ALL_INDEX_COLUMNS: IndexColumns = { titleLengths: true, version: true, termLists: true };

/** A chunk's distinct terms as `kb_chunks.index_terms` keeps them. */
export function termListOf(analysed: AnalysedChunk): string {
  return JSON.stringify([...analysed.frequencies.keys()]);
}

/**
 * Terms in the order of the postings' key. They are sorted by the built-in string order, with no
 * comparator: a comparator function called for every comparison took most of an ingestion batch's
 * JavaScript time.
 */
function inTermOrder(terms: Iterable<string>): string[] {
  return [...terms].sort();
}

/**
 * Writes the postings of chunks already analysed (their rows carry `index_length` already) and
 * adds them to the knowledge base's totals; call inside the transaction that inserted them. The
 * totals row, the one row every writer of the knowledge base's index shares, is written last: on
 * PostgreSQL two writers then write their postings at the same time, and one waits for the other
 * only there, until it commits. Postings never make writers wait for each other: each chunk has
 * one writer, so no two writers insert the same key, and a delete takes only postings already
 * committed. (Until 2026-12-07 the totals came first, a lock order kept from when writers also
 * updated a row per term; every other writer's whole write then waited behind an open one.)
 */
export async function insertPostings(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  chunks: ReadonlyArray<{ id: number; analysed: AnalysedChunk }>,
  columns: IndexColumns = ALL_INDEX_COLUMNS,
): Promise<void> {
  if (chunks.length === 0) return;
  const lengthTotal = chunks.reduce((sum, chunk) => sum + chunk.analysed.length, 0);
  const titles = {
    chunks: chunks.filter((chunk) => chunk.analysed.titleLength > 0).length,
    length: chunks.reduce((sum, chunk) => sum + chunk.analysed.titleLength, 0),
  };
  // Grouped by term and written in term order, the order of the postings' key: consecutive rows
  // land in the same pages of the index instead of one page after another across all of it.
  // Each term's postings are kept flat (chunk, frequency, length, chunk, ...), POSTING_VALUES a
  // posting, as the rows are written: no array per posting.
  const postingsByTerm = new Map<string, number[]>();
  let postingCount = 0;
  for (const { id, analysed } of chunks) {
    postingCount += analysed.frequencies.size;
    for (const [term, frequency] of analysed.frequencies) {
      const postings = postingsByTerm.get(term);
      if (postings === undefined) postingsByTerm.set(term, [id, frequency, analysed.length]);
      else postings.push(id, frequency, analysed.length);
    }
  }
  // Filled in place at its final size: grown a push at a time, and through a [term, postings] pair
  // per term, the same work took 5.1 to 5.4 ms of CPU for 256 abstracts rather than 3.5 to 3.7.
  const values = new Array<unknown>(postingCount * POSTINGS.columns.length);
  let at = 0;
  for (const term of inTermOrder(postingsByTerm.keys())) {
    const postings = postingsByTerm.get(term)!;
    for (let index = 0; index < postings.length; index += POSTING_VALUES) {
      values[at++] = knowledgeBaseId;
      values[at++] = term;
      values[at++] = postings[index];
      values[at++] = postings[index + 1];
      values[at++] = postings[index + 2];
    }
  }
  await insertRowBatch(db, POSTINGS, values);
  await moveIndexTotals(db, knowledgeBaseId, {
    chunks: chunks.length,
    length: lengthTotal,
    versioned: columns.version,
    ...(columns.titleLengths ? { titles } : {}),
  });
}

/**
 * Indexes chunks already stored (their `index_length` and `index_title_length` are set in one
 * statement, then their postings and totals are written), for the reindex job and the upgrade to
 * migration 0094 (which runs before the columns of migrations 0096 and 0097 exist: both false); call
 * inside a transaction, with the chunks unindexed.
 */
export async function indexStoredChunks(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  chunks: ReadonlyArray<{ id: number; analysed: AnalysedChunk }>,
  columns: IndexColumns = ALL_INDEX_COLUMNS,
): Promise<void> {
  if (chunks.length === 0) return;
  const caseOf = (value: (analysed: AnalysedChunk) => number) =>
    sql.join(
      chunks.map(({ id, analysed }) => sql`when ${id} then cast(${value(analysed)} as double precision)`),
      sql` `,
    );
  const titleLength = columns.titleLengths ? sql`, index_title_length = case id ${caseOf((analysed) => analysed.titleLength)} end` : sql``;
  const termLists = columns.termLists
    ? sql`, index_terms = case id ${sql.join(
        chunks.map(({ id, analysed }) => sql`when ${id} then ${termListOf(analysed)}`),
        sql` `,
      )} end`
    : sql``;
  await sql`update kb_chunks set index_length = case id ${caseOf((analysed) => analysed.length)} end ${titleLength} ${termLists}
    where id in (${sql.join(chunks.map(({ id }) => id))})`.execute(db);
  await insertPostings(db, knowledgeBaseId, chunks, columns);
}

/** Chunks the reindex job takes per transaction: short enough not to hold SQLite's writer for long. */
export const REINDEX_BATCH = 500;

export interface ReindexStep {
  knowledgeBaseId: number;
  chunksDone: number;
  finished: boolean;
}

/** Removes chunks from the index (postings and totals) without deleting them, for reindexing them. */
async function unindexChunks(db: Kysely<Database>, knowledgeBaseId: number, chunkIds: readonly number[]): Promise<void> {
  const indexed = await db
    .selectFrom('kb_chunks')
    .select(['id', 'index_length', 'index_title_length', 'index_terms'])
    .where('id', 'in', chunkIds)
    .where('index_length', 'is not', null)
    .execute();
  if (indexed.length === 0) return;
  const titled = indexed.filter((chunk) => (chunk.index_title_length ?? 0) > 0);
  await moveIndexTotals(db, knowledgeBaseId, {
    chunks: -indexed.length,
    length: -indexed.reduce((sum, chunk) => sum + (chunk.index_length ?? 0), 0),
    titles: { chunks: -titled.length, length: -titled.reduce((sum, chunk) => sum + (chunk.index_title_length ?? 0), 0) },
    versioned: true,
  });
  const lists = indexed.map((chunk) => ({ id: chunk.id, terms: chunk.index_terms ?? '[]' }));
  await deletePostings(db, knowledgeBaseId, lists);
}

/**
 * Deletes indexed chunks' postings, found by their key (knowledge base, term, chunk) through each
 * chunk's term list: neither store indexes the postings by chunk (migrations 0098 and 0100).
 */
async function deletePostings(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  lists: ReadonlyArray<{ id: number; terms: string }>,
): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    // One statement for the batch: the pairs' arrays are joined to the postings' key.
    const terms: string[] = [];
    const chunkIds: number[] = [];
    for (const { id, terms: list } of lists)
      for (const term of JSON.parse(list) as string[]) {
        terms.push(term);
        chunkIds.push(id);
      }
    await sql`delete from kb_postings p using unnest(${terms}::text[], ${chunkIds}::integer[]) as removed(term, chunk_id)
      where p.knowledge_base_id = ${knowledgeBaseId} and p.term = removed.term and p.chunk_id = removed.chunk_id`.execute(db);
    return;
  }
  for (const { id, terms } of lists)
    await sql`delete from kb_postings
      where knowledge_base_id = ${knowledgeBaseId} and term in (select value from json_each(${terms})) and chunk_id = ${id}`.execute(db);
}

/** Analyses stored chunks in a language, in order: the ingestion runner's does it on a document worker thread. */
export type StoredChunkAnalysis = (language: string, chunks: Array<{ text: string; metadata: string }>) => Promise<AnalysedChunk[]>;

/** The analysis on the calling thread, for tests and tools that have no worker pool. */
const analyseHere: StoredChunkAnalysis = async (language, chunks) => {
  const analyzer = textAnalyzer(language);
  return chunks.map((chunk) => analyseChunk(analyzer, chunk.text, chunk.metadata));
};

/**
 * One step of the reindex job: the next REINDEX_BATCH chunks of the first knowledge base waiting
 * for it, analysed by `analyse` (outside any transaction: on a worker thread it takes a while),
 * then indexed anew in one transaction; undefined when none waits. The transaction first moves
 * the cursor on only if it is still where it was read and the language is the one analysed, so
 * two runners never redo one batch, and a language changed meanwhile (cursor back to 0) starts
 * the job over. Chunks deleted while they were analysed are left out.
 */
export async function reindexNextBatch(
  db: Kysely<Database>,
  options: { batchSize?: number; analyse?: StoredChunkAnalysis } = {},
): Promise<ReindexStep | undefined> {
  const batchSize = options.batchSize ?? REINDEX_BATCH;
  const waiting = await db
    .selectFrom('knowledge_bases')
    .select(['id', 'reindex_cursor', 'search_language'])
    .where('reindex_cursor', 'is not', null)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (waiting === undefined || waiting.reindex_cursor === null) return undefined;
  const { id: knowledgeBaseId, reindex_cursor: cursor, search_language: language } = waiting;
  const chunks = await db
    .selectFrom('kb_chunks')
    .select(['id', 'text', 'metadata'])
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .where('id', '>', cursor)
    .orderBy('id')
    .limit(batchSize)
    .execute();
  const analysed = chunks.length === 0 ? [] : await (options.analyse ?? analyseHere)(language, chunks);
  const finished = chunks.length < batchSize;
  return db.transaction().execute(async (transaction) => {
    const claimed = await transaction
      .updateTable('knowledge_bases')
      .set((eb) => ({
        reindex_cursor: finished ? null : chunks[chunks.length - 1]!.id,
        reindex_done: finished ? 0 : eb('reindex_done', '+', chunks.length),
      }))
      .where('id', '=', knowledgeBaseId)
      .where('reindex_cursor', '=', cursor)
      .where('search_language', '=', language)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0 || chunks.length === 0) return { knowledgeBaseId, chunksDone: 0, finished };
    const remaining = await transaction
      .selectFrom('kb_chunks')
      .select('id')
      .where(
        'id',
        'in',
        chunks.map((chunk) => chunk.id),
      )
      .execute();
    const still = new Set(remaining.map((row) => row.id));
    const kept = chunks.flatMap((chunk, index) => (still.has(chunk.id) ? [{ id: chunk.id, analysed: analysed[index]! }] : []));
    if (kept.length === 0) return { knowledgeBaseId, chunksDone: chunks.length, finished };
    await unindexChunks(
      transaction,
      knowledgeBaseId,
      kept.map((chunk) => chunk.id),
    );
    await indexStoredChunks(transaction, knowledgeBaseId, kept);
    return { knowledgeBaseId, chunksDone: chunks.length, finished };
  });
}

/** A knowledge base's full-text index as the API shows it: ready, or reindexing with its progress. */
export function searchIndexState(record: { reindex_cursor: number | null; reindex_done: number; chunk_count: number }): {
  state: 'ready' | 'reindexing';
  chunks_done: number;
  chunks_total: number;
} {
  const total = record.chunk_count;
  if (record.reindex_cursor === null) return { state: 'ready', chunks_done: total, chunks_total: total };
  return { state: 'reindexing', chunks_done: Math.min(record.reindex_done, total), chunks_total: total };
}
