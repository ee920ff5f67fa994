/** Knowledge bases, their documents and chunks: the rows ingestion writes and retrieval reads. */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import { deleteKnowledgeBaseDocumentTexts } from './document-texts-repository.js';
import { deleteKnowledgeBaseGraph } from './entity-graph-repository.js';
import type { KnowledgeBaseListScope } from './list-scopes.js';
import { dialectOf, type Dialect } from './dialect.js';
import { precompiledQuery } from './precompiled-query.js';
import { insertRowBatchReturningIds, type RowBatchShape } from './row-batch-insert.js';
import { containsText, searchText } from './search-pattern.js';
import { insertPostings, searchLanguagesOf, termListOf } from './search-index-repository.js';
import { analyseChunk, DEFAULT_SEARCH_LANGUAGE, textAnalyzer, type AnalysedChunk, type TextAnalyzer } from './text-analysis.js';
import {
  nowTimestamp,
  type Database,
  type DocumentStatus,
  type EmbeddingConnector,
  type KnowledgeChunksTable,
  type KnowledgeBasesTable,
} from './schema.js';

export interface NewKnowledgeBase {
  ownerId: number;
  organizationId: number;
  name: string;
  description: string;
  chunkSize: number;
  chunkOverlap: number;
  /** A BCP-47 tag; absent or null when not said. */
  language?: string | null;
  /** How full-text search analyses its text (text-analysis.ts); absent: the default, english. */
  searchLanguage?: string;
  /** How its chunks are embedded; absent, it is searched by full text only. */
  embedding?: { connector: EmbeddingConnector; model: string };
  /** Whether ingestion builds its entity graph (docs/graph-search.md). */
  graphEnabled?: boolean;
}

export async function insertKnowledgeBase(db: Kysely<Database>, knowledgeBase: NewKnowledgeBase): Promise<number> {
  const timestamp = nowTimestamp();
  const { id } = await db
    .insertInto('knowledge_bases')
    .values({
      owner_id: knowledgeBase.ownerId,
      organization_id: knowledgeBase.organizationId,
      name: knowledgeBase.name,
      description: knowledgeBase.description,
      search_text: searchText(knowledgeBase.name, knowledgeBase.description),
      visibility: 'private',
      chunk_size: knowledgeBase.chunkSize,
      chunk_overlap: knowledgeBase.chunkOverlap,
      embedding_connector: knowledgeBase.embedding?.connector ?? null,
      embedding_model: knowledgeBase.embedding?.model ?? null,
      language: knowledgeBase.language ?? null,
      ...(knowledgeBase.searchLanguage !== undefined && { search_language: knowledgeBase.searchLanguage }),
      graph_enabled: knowledgeBase.graphEnabled === true ? 1 : 0,
      created_at: timestamp,
      updated_at: timestamp,
      deleted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export interface NewDocument {
  knowledgeBaseId: number;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  sourceUrl: string | null;
  status: DocumentStatus;
  metadata: Record<string, unknown>;
  /** The process uploading it and until when it holds the upload (see kb_documents.upload_owner); none for a document written whole. */
  upload?: { owner: string; leaseExpiresAt: string };
}

/**
 * Chunk rows per step, with their postings and totals written after each. SQLite's statements run
 * on the event loop, which turns between two steps (256 rows are one of row-batch-insert's
 * statement sizes); on PostgreSQL each step is a round trip inside the batch's write transaction,
 * which the knowledge base's other writers wait for, so a batch of 256 small documents takes one
 * rather than two.
 */
const CHUNK_INSERT_BATCH: Record<Dialect, number> = { sqlite: 256, postgres: 1_000 };

/** A new chunk's row with its full-text lengths and terms, as insertDocumentsChunks writes it. */
const NEW_CHUNK_ROW: RowBatchShape = {
  table: 'kb_chunks',
  columns: ['knowledge_base_id', 'document_id', 'chunk_index', 'text', 'metadata', 'index_length', 'index_title_length', 'index_terms'],
  postgresTypes: ['integer', 'integer', 'integer', 'text', 'text', 'double precision', 'double precision', 'text'],
};

/** Chunks' full-text analysis made before their insert (by a document worker thread), with the language it was made in. */
export interface ChunkAnalysis {
  language: string;
  /** One per chunk, in the same order; none when it was not made. */
  chunks: readonly AnalysedChunk[] | undefined;
}

/** A document and the chunks to write for it, with their analysis when a worker thread made it. */
export interface DocumentChunks {
  documentId: number;
  chunks: ReadonlyArray<Omit<Insertable<KnowledgeChunksTable>, 'document_id' | 'index_length' | 'index_title_length' | 'index_terms'>>;
  analysis?: ChunkAnalysis;
}

/**
 * Inserts a document's chunks (all of one knowledge base) and their full-text postings, records
 * their count and returns the new chunk ids in the order of `chunks`; call it inside a transaction.
 */
export async function insertChunks(
  db: Kysely<Database>,
  documentId: number,
  chunks: DocumentChunks['chunks'],
  analysis?: ChunkAnalysis,
): Promise<number[]> {
  const [ids] = await insertDocumentsChunks(db, [{ documentId, chunks, ...(analysis === undefined ? {} : { analysis }) }]);
  return ids!;
}

/** One chunk row to insert, with its analysis when it was made before (else `analyzer` makes it). */
interface PendingChunk {
  row: DocumentChunks['chunks'][number] & { document_id: number };
  ready: AnalysedChunk | undefined;
  analyzer: TextAnalyzer;
}

/** Each document's chunks as rows, each with the analysis made in the language its knowledge base still has. */
async function pendingChunksOf(db: Kysely<Database>, documents: readonly DocumentChunks[]): Promise<PendingChunk[]> {
  const languages = await searchLanguagesOf(db, [
    ...new Set(documents.flatMap(({ chunks }) => chunks.map((chunk) => chunk.knowledge_base_id))),
  ]);
  const analyzers = new Map<string, TextAnalyzer>();
  const analyzerOf = (language: string): TextAnalyzer => {
    const analyzer = analyzers.get(language) ?? textAnalyzer(language);
    analyzers.set(language, analyzer);
    return analyzer;
  };
  return documents.flatMap(({ documentId, chunks, analysis }) =>
    chunks.map((chunk, index) => {
      const language = languages.get(chunk.knowledge_base_id) ?? DEFAULT_SEARCH_LANGUAGE;
      // Analysed in a worker thread already, in the language the knowledge base still has: used as is.
      // Otherwise (tests, benches, or a language changed while the document was read) analysed here.
      const ready = analysis?.language === language ? analysis.chunks?.[index] : undefined;
      return { row: { ...chunk, document_id: documentId }, ready, analyzer: analyzerOf(language) };
    }),
  );
}

/**
 * Inserts the chunks of several documents (each document's chunks after the last statement's, up
 * to CHUNK_INSERT_BATCH rows a statement, so a batch of small documents costs one statement) with
 * their full-text postings, records each document's count, and returns each document's new chunk
 * ids in the order of its chunks (`markCompleted` marks the documents completed as their counts are
 * recorded); call it inside a transaction. RETURNING lists rows in no promised order, but ids grow
 * with every row one statement inserts (SQLite AUTOINCREMENT, a PostgreSQL sequence), so a
 * statement's ids sorted ascending are its rows in order.
 */
export async function insertDocumentsChunks(
  db: Kysely<Database>,
  documents: readonly DocumentChunks[],
  options: { markCompleted?: boolean } = {},
): Promise<number[][]> {
  const pending = await pendingChunksOf(db, documents);
  const ids: number[] = [];
  const statementRows = CHUNK_INSERT_BATCH[dialectOf(db)];
  for (let start = 0; start < pending.length; start += statementRows) {
    // better-sqlite3 runs each statement synchronously, so awaiting them alone never lets the event
    // loop turn: without this, a document of tens of thousands of chunks would freeze every request.
    if (start > 0) await yieldToEventLoop();
    const slice = pending.slice(start, start + statementRows);
    const analysed = slice.map(({ row, ready, analyzer }) => ready ?? analyseChunk(analyzer, row.text, row.metadata));
    const statementIds = await insertRowBatchReturningIds(
      db,
      NEW_CHUNK_ROW,
      slice.flatMap(({ row }, index) => [
        row.knowledge_base_id,
        row.document_id,
        row.chunk_index,
        row.text,
        row.metadata,
        analysed[index]!.length,
        analysed[index]!.titleLength,
        termListOf(analysed[index]!),
      ]),
    );
    ids.push(...statementIds);
    const byKnowledgeBase = new Map<number, Array<{ id: number; analysed: AnalysedChunk }>>();
    slice.forEach(({ row }, index) => {
      const chunks = byKnowledgeBase.get(row.knowledge_base_id) ?? [];
      chunks.push({ id: statementIds[index]!, analysed: analysed[index]! });
      byKnowledgeBase.set(row.knowledge_base_id, chunks);
    });
    for (const [knowledgeBaseId, chunks] of byKnowledgeBase) await insertPostings(db, knowledgeBaseId, chunks);
  }
  if (documents.length > 0) {
    const counts = documents.map(({ documentId, chunks }) => sql`when ${documentId} then cast(${chunks.length} as integer)`);
    await db
      .updateTable('kb_documents')
      .set({
        chunk_count: sql<number>`case id ${sql.join(counts, sql` `)} end`,
        updated_at: nowTimestamp(),
        // With their counts, in the same statement: a second update of the same rows cost PostgreSQL a
        // second version of each (5.6 to 11 ms a batch of 256 documents).
        ...(options.markCompleted === true ? { status: 'completed' as const, error: null } : {}),
      })
      .where(
        'id',
        'in',
        documents.map((document) => document.documentId),
      )
      .execute();
  }
  let taken = 0;
  return documents.map(({ chunks }) => {
    const own = ids.slice(taken, taken + chunks.length);
    taken += chunks.length;
    return own;
  });
}

/** Removes the chunks of several documents in one statement; answers how many it removed. */
export async function deleteDocumentsChunks(db: Kysely<Database>, documentIds: readonly number[]): Promise<number> {
  if (documentIds.length === 0) return 0;
  const [result] = await db.deleteFrom('kb_chunks').where('document_id', 'in', documentIds).execute();
  return Number(result?.numDeletedRows ?? 0);
}

export async function deleteDocumentChunks(db: Kysely<Database>, documentId: number): Promise<void> {
  await db.deleteFrom('kb_chunks').where('document_id', '=', documentId).execute();
}

/** A knowledge base's own row. */
export type KnowledgeBaseRow = Selectable<KnowledgeBasesTable>;
export type KnowledgeBaseRecord = KnowledgeBaseRow & { owner_email: string; document_count: number; chunk_count: number };

/**
 * Knowledge bases with their owner's email and their counts. The chunk count is the search index's
 * own (`index_chunk_count`, kept as chunks are inserted and deleted; every chunk is indexed outside
 * a reindex step's transaction): counting the chunks instead was a scan of them for every knowledge
 * base listed, 3.7 ms on SQLite and 12.5 ms on PostgreSQL at 100,000 chunks.
 */
function selectKnowledgeBases(db: Kysely<Database>) {
  return db
    .selectFrom('knowledge_bases')
    .innerJoin('users', 'users.id', 'knowledge_bases.owner_id')
    .selectAll('knowledge_bases')
    .select('users.email as owner_email')
    .select('knowledge_bases.index_chunk_count as chunk_count')
    .select((eb) => [
      eb
        .selectFrom('kb_documents')
        .select(eb.fn.countAll<number>().as('count'))
        .whereRef('kb_documents.knowledge_base_id', '=', 'knowledge_bases.id')
        .as('document_count'),
    ]);
}

function toRecord(
  row: Selectable<KnowledgeBasesTable> & { owner_email: string; document_count: unknown; chunk_count: unknown },
): KnowledgeBaseRecord {
  return { ...row, document_count: Number(row.document_count), chunk_count: Number(row.chunk_count) };
}

/** Finds a knowledge base, deleted or not (the permission module decides who sees what). */
// Every search of a knowledge base reads its row: compiled once, and without the counts, which cost a scan of its chunks.
const selectKnowledgeBaseRow = precompiledQuery(['id'], (db: Kysely<Database>, { id }) =>
  db.selectFrom('knowledge_bases').selectAll().where('id', '=', id),
);

/** A knowledge base's own row, deleted or not, without its owner's email or its counts. */
export async function findKnowledgeBaseRow(db: Kysely<Database>, id: number): Promise<KnowledgeBaseRow | undefined> {
  const [row] = await selectKnowledgeBaseRow(db, { id });
  return row;
}

export async function findKnowledgeBase(db: Kysely<Database>, id: number): Promise<KnowledgeBaseRecord | undefined> {
  const row = await selectKnowledgeBases(db).where('knowledge_bases.id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export async function listKnowledgeBases(
  db: Kysely<Database>,
  scope: KnowledgeBaseListScope,
  query: { limit: number; offset: number; search: string | undefined },
): Promise<{ items: KnowledgeBaseRecord[]; total: number }> {
  let filtered = selectKnowledgeBases(db).where('knowledge_bases.deleted_at', 'is', null);
  if (scope.kind === 'organization') filtered = filtered.where('knowledge_bases.organization_id', '=', scope.organizationId);
  if (scope.kind === 'member') {
    filtered = filtered.where((eb) =>
      eb.or([
        eb('knowledge_bases.owner_id', '=', scope.userId),
        eb.and([eb('knowledge_bases.visibility', '=', 'organization'), eb('knowledge_bases.organization_id', '=', scope.organizationId)]),
      ]),
    );
  }
  if (query.search !== undefined) filtered = filtered.where(containsText('knowledge_bases.search_text', query.search));
  const rows = await filtered.orderBy('knowledge_bases.id', 'desc').limit(query.limit).offset(query.offset).execute();
  const { total } = await filtered
    .clearSelect()
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return { items: rows.map(toRecord), total: Number(total) };
}

/** Applies the changes to `current`, keeping its search text in step with its name and description. */
export async function updateKnowledgeBase(
  db: Kysely<Database>,
  current: Pick<KnowledgeBaseRecord, 'id' | 'name' | 'description'>,
  changes: Omit<Updateable<KnowledgeBasesTable>, 'search_text'>,
): Promise<void> {
  const renamed = changes.name !== undefined || changes.description !== undefined;
  const search = renamed ? { search_text: searchText(changes.name ?? current.name, changes.description ?? current.description) } : {};
  await db
    .updateTable('knowledge_bases')
    .set({ ...changes, ...search, updated_at: nowTimestamp() })
    .where('id', '=', current.id)
    .execute();
}

/** Removes a knowledge base's ingestion jobs, entity graph, documents and chunks (and so their index entries and embeddings) and marks it deleted. */
export async function deleteKnowledgeBaseContents(
  db: Kysely<Database>,
  current: Pick<KnowledgeBaseRecord, 'id' | 'name' | 'description'>,
): Promise<void> {
  await db.deleteFrom('ingestion_jobs').where('knowledge_base_id', '=', current.id).execute();
  await deleteKnowledgeBaseGraph(db, current.id);
  // Its whole index in one range delete first, so the chunks' delete trigger finds nothing left to unindex one by one.
  await db.deleteFrom('kb_postings').where('knowledge_base_id', '=', current.id).execute();
  await db.deleteFrom('kb_chunks').where('knowledge_base_id', '=', current.id).execute();
  await deleteKnowledgeBaseDocumentTexts(db, current.id);
  await db.deleteFrom('kb_documents').where('knowledge_base_id', '=', current.id).execute();
  await updateKnowledgeBase(db, current, { deleted_at: nowTimestamp() });
}
