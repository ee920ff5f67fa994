/**
 * The rows of knowledge-base documents: their status as their ingestion jobs move, the lists and
 * reads the API gives, and their removal with their chunks and jobs. Uploads in progress (a row
 * before its job) are document-uploads-repository.ts; the jobs themselves are
 * ingestion-jobs-repository.ts.
 */
import type { Kysely, Selectable } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import { deleteDocumentText } from './document-texts-repository.js';
import { removeUnmentionedEntities } from './entity-graph-repository.js';
import type { IngestionJobRow } from './ingestion-jobs-repository.js';
import type { NewDocument } from './knowledge-repository.js';
import { insertRowBatchReturningIds, type RowBatchShape } from './row-batch-insert.js';
import { nowTimestamp, type Database, type DocumentStatus, type KnowledgeDocumentsTable } from './schema.js';

export type KnowledgeDocumentRow = Selectable<KnowledgeDocumentsTable>;

/** A new document's row, as insertDocuments writes it. */
const NEW_DOCUMENT_ROW: RowBatchShape = {
  table: 'kb_documents',
  columns: [
    'knowledge_base_id',
    'file_name',
    'content_type',
    'size_bytes',
    'source_url',
    'status',
    'error',
    'chunk_count',
    'metadata',
    'upload_owner',
    'upload_lease_expires_at',
    'created_at',
    'updated_at',
  ],
  postgresTypes: ['integer', 'text', 'text', 'integer', 'text', 'text', 'text', 'integer', 'text', 'text', 'text', 'text', 'text'],
};

/** Writes the rows of several documents of one knowledge base (one statement on PostgreSQL, a few on SQLite); answers their ids in order. */
export async function insertDocuments(db: Kysely<Database>, documents: readonly NewDocument[]): Promise<number[]> {
  const timestamp = nowTimestamp();
  const values = documents.flatMap((document) => [
    document.knowledgeBaseId,
    document.fileName,
    document.contentType,
    document.sizeBytes,
    document.sourceUrl,
    document.status,
    null,
    0,
    JSON.stringify(document.metadata),
    document.upload?.owner ?? null,
    document.upload?.leaseExpiresAt ?? null,
    timestamp,
    timestamp,
  ]);
  return insertRowBatchReturningIds(db, NEW_DOCUMENT_ROW, values);
}

/** One document; see insertDocuments. */
export async function insertDocument(db: Kysely<Database>, document: NewDocument): Promise<number> {
  const [id] = await insertDocuments(db, [document]);
  return id!;
}

/**
 * Marks the documents of `jobs` processing, each only while `owner` still holds its job (so a
 * cancellation in between is not overwritten); answers the ids of the documents it marked.
 */
export async function markDocumentsProcessing(
  db: Kysely<Database>,
  jobs: ReadonlyArray<Pick<IngestionJobRow, 'id'>>,
  owner: string,
): Promise<Set<number>> {
  if (jobs.length === 0) return new Set();
  // The held jobs' documents, found once: an `exists` per document, correlated on document_id,
  // made SQLite seek every listed job id for every document (256 × 256 seeks, 6-10 ms a batch).
  const rows = await db
    .updateTable('kb_documents')
    .set({ status: 'processing', error: null, updated_at: nowTimestamp() })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('ingestion_jobs')
        .select('ingestion_jobs.document_id')
        .where(
          'ingestion_jobs.id',
          'in',
          jobs.map((job) => job.id),
        )
        .where('ingestion_jobs.lease_owner', '=', owner)
        .where('ingestion_jobs.status', '=', 'processing'),
    )
    .returning('id')
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Sets the status (and error) of one document. */
export async function setDocumentStatus(
  db: Kysely<Database>,
  documentId: number,
  status: DocumentStatus,
  error: string | null,
): Promise<void> {
  await db.updateTable('kb_documents').set({ status, error, updated_at: nowTimestamp() }).where('id', '=', documentId).execute();
}

/** Sets the same status (and error) on several documents in one statement. */
export async function setDocumentsStatus(
  db: Kysely<Database>,
  documentIds: readonly number[],
  status: DocumentStatus,
  error: string | null,
): Promise<void> {
  if (documentIds.length === 0) return;
  await db.updateTable('kb_documents').set({ status, error, updated_at: nowTimestamp() }).where('id', 'in', documentIds).execute();
}

export async function findDocument(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  documentId: number,
): Promise<KnowledgeDocumentRow | undefined> {
  return db
    .selectFrom('kb_documents')
    .selectAll()
    .where('id', '=', documentId)
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .executeTakeFirst();
}

export type DocumentWithJob = KnowledgeDocumentRow & { job_id: number | null };

function selectDocumentsWithJobs(db: Kysely<Database>, knowledgeBaseId: number) {
  return db
    .selectFrom('kb_documents')
    .selectAll('kb_documents')
    .select((eb) =>
      eb
        .selectFrom('ingestion_jobs')
        .select((inner) => inner.fn.max('ingestion_jobs.id').as('id'))
        .whereRef('ingestion_jobs.document_id', '=', 'kb_documents.id')
        .as('job_id'),
    )
    .where('kb_documents.knowledge_base_id', '=', knowledgeBaseId)
    .orderBy('kb_documents.id', 'desc');
}

/** All of a knowledge base's documents, newest first, each with the id of its latest job. */
export async function listDocuments(db: Kysely<Database>, knowledgeBaseId: number): Promise<DocumentWithJob[]> {
  return selectDocumentsWithJobs(db, knowledgeBaseId).execute();
}

/** A page of a knowledge base's documents, newest first (by id alone, so pages never overlap), with the count of all of them. */
export async function listDocumentPage(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  page: PageBounds,
): Promise<{ items: DocumentWithJob[]; total: number }> {
  const items = await selectDocumentsWithJobs(db, knowledgeBaseId).limit(page.limit).offset(page.offset).execute();
  const { total } = await db
    .selectFrom('kb_documents')
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

/** Removes a document with its chunks and jobs; call inside a transaction. */
export async function deleteDocument(db: Kysely<Database>, documentId: number): Promise<void> {
  const document = await db.selectFrom('kb_documents').select('knowledge_base_id').where('id', '=', documentId).executeTakeFirst();
  await db.deleteFrom('ingestion_jobs').where('document_id', '=', documentId).execute();
  // Its chunks' graph mentions and relations go with them; the entities only they mentioned go next.
  await db.deleteFrom('kb_chunks').where('document_id', '=', documentId).execute();
  await deleteDocumentText(db, documentId);
  await db.deleteFrom('kb_documents').where('id', '=', documentId).execute();
  if (document !== undefined) await removeUnmentionedEntities(db, document.knowledge_base_id);
}
