/**
 * Ingestion jobs and the document rows they drive. A runner claims one job with a single UPDATE
 * whose subquery picks the oldest pending job or a processing one whose lease has expired:
 * SQLite takes its write lock before that statement reads anything, and PostgreSQL locks the
 * chosen row with FOR UPDATE SKIP LOCKED, so two runners never claim the same job at once.
 */
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Dialect } from './dialect.js';
import { nowTimestamp, type Database, type DocumentStatus, type IngestionJobsTable, type KbDocumentsTable } from './schema.js';

export type IngestionJobRow = Selectable<IngestionJobsTable>;
export type KbDocumentRow = Selectable<KbDocumentsTable>;

export async function insertIngestionJob(db: Kysely<Database>, job: { knowledgeBaseId: number; documentId: number }): Promise<IngestionJobRow> {
  const timestamp = nowTimestamp();
  return db
    .insertInto('ingestion_jobs')
    .values({
      knowledge_base_id: job.knowledgeBaseId,
      document_id: job.documentId,
      status: 'pending',
      progress_current: 0,
      progress_total: 0,
      message: 'Waiting to be processed.',
      error: null,
      attempts: 0,
    lease_owner: null,
    lease_expires_at: null,
      created_at: timestamp,
    updated_at: timestamp,
      finished_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Claims the oldest job that is pending, or processing under a lease that expired (its runner
 * died), for `owner` until `leaseExpiresAt`. Undefined when there is none.
 */
export async function claimIngestionJob(db: Kysely<Database>, dialect: Dialect, owner: string, leaseExpiresAt: string): Promise<IngestionJobRow | undefined> {
  const now = nowTimestamp();
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<IngestionJobRow>`
    update ingestion_jobs
    set status = 'processing', lease_owner = ${owner}, lease_expires_at = ${leaseExpiresAt}, attempts = attempts + 1,
        progress_current = 0, progress_total = 0, message = 'Started.', error = null, updated_at = ${now}
    where id = (
      select id from ingestion_jobs
      where status = 'pending' or (status = 'processing' and (lease_expires_at is null or lease_expires_at < ${now}))
      order by id
      limit 1
      ${lock}
    )
    returning *`.execute(db);
  return result.rows[0];
}

/** Applies `changes` while `owner` still holds the job; false when it no longer does (cancelled, taken over). */
async function updateHeldJob(db: Kysely<Database>, jobId: number, owner: string, changes: Updateable<IngestionJobsTable>): Promise<boolean> {
  const result = await db
    .updateTable('ingestion_jobs')
    .set(changes)
    .where('id', '=', jobId)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Extends the lease while `owner` still holds the job. */
export async function renewIngestionLease(db: Kysely<Database>, jobId: number, owner: string, leaseExpiresAt: string): Promise<boolean> {
  return updateHeldJob(db, jobId, owner, { lease_expires_at: leaseExpiresAt });
}

/** Records progress (and extends the lease) while `owner` still holds the job. */
export async function updateIngestionProgress(
  db: Kysely<Database>,
  jobId: number,
  owner: string,
  progress: { current: number; total: number; message: string; leaseExpiresAt: string },
): Promise<boolean> {
  return updateHeldJob(db, jobId, owner, {
    progress_current: progress.current,
    progress_total: progress.total,
    message: progress.message,
    lease_expires_at: progress.leaseExpiresAt,
    updated_at: nowTimestamp(),
  });
}

/** Ends a job `owner` holds as completed or failed, with its document; false when it no longer holds it. Call inside a transaction. */
export async function finishIngestionJob(
  db: Kysely<Database>,
  job: Pick<IngestionJobRow, 'id' | 'document_id'>,
  owner: string,
  outcome: { status: 'completed' | 'failed'; message: string; error: string | null; progressTotal: number },
): Promise<boolean> {
  const timestamp = nowTimestamp();
  const held = await updateHeldJob(db, job.id, owner, {
    status: outcome.status,
    message: outcome.message,
    error: outcome.error,
    progress_current: outcome.progressTotal,
    progress_total: outcome.progressTotal,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: timestamp,
    finished_at: timestamp,
  });
  if (!held) return false;
  await setDocumentStatus(db, job.document_id, outcome.status, outcome.error);
  return true;
}

/** The job's status as stored now, for a runner checking whether it was cancelled or taken over. */
export async function findIngestionJob(db: Kysely<Database>, jobId: number): Promise<IngestionJobRow | undefined> {
  return db.selectFrom('ingestion_jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
}

export async function listIngestionJobs(db: Kysely<Database>, knowledgeBaseId: number): Promise<IngestionJobRow[]> {
  return db.selectFrom('ingestion_jobs').selectAll().where('knowledge_base_id', '=', knowledgeBaseId).orderBy('id', 'desc').execute();
}

/** Cancels a pending or processing job (and marks its document cancelled); false when it had already ended. */
export async function cancelIngestionJob(db: Kysely<Database>, job: Pick<IngestionJobRow, 'id' | 'document_id'>): Promise<boolean> {
  const timestamp = nowTimestamp();
  const result = await db
    .updateTable('ingestion_jobs')
    .set({ status: 'cancelled', message: 'Cancelled.', lease_owner: null, lease_expires_at: null, updated_at: timestamp, finished_at: timestamp })
    .where('id', '=', job.id)
    .where('status', 'in', ['pending', 'processing'])
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await setDocumentStatus(db, job.document_id, 'cancelled', null);
  return true;
}

/** Puts a failed or cancelled job back in the queue (and its document back to pending); false when it was neither. */
export async function retryIngestionJob(db: Kysely<Database>, job: Pick<IngestionJobRow, 'id' | 'document_id'>): Promise<boolean> {
  const result = await db
    .updateTable('ingestion_jobs')
    .set({ status: 'pending', message: 'Waiting to be processed.', error: null, progress_current: 0, progress_total: 0, lease_owner: null, lease_expires_at: null, updated_at: nowTimestamp(), finished_at: null })
    .where('id', '=', job.id)
    .where('status', 'in', ['failed', 'cancelled'])
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await setDocumentStatus(db, job.document_id, 'pending', null);
  return true;
}

/** Marks the job's document processing, only while `owner` still holds the job (so a cancellation in between is not overwritten). */
export async function markDocumentProcessing(db: Kysely<Database>, job: Pick<IngestionJobRow, 'id' | 'document_id'>, owner: string): Promise<boolean> {
  const result = await db
    .updateTable('kb_documents')
    .set({ status: 'processing', error: null, updated_at: nowTimestamp() })
    .where('id', '=', job.document_id)
    .where((eb) =>
      eb.exists(eb.selectFrom('ingestion_jobs').select('ingestion_jobs.id').where('ingestion_jobs.id', '=', job.id).where('ingestion_jobs.lease_owner', '=', owner).where('ingestion_jobs.status', '=', 'processing')),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setDocumentStatus(db: Kysely<Database>, documentId: number, status: DocumentStatus, error: string | null): Promise<void> {
  await db.updateTable('kb_documents').set({ status, error, updated_at: nowTimestamp() }).where('id', '=', documentId).execute();
}

export async function findDocument(db: Kysely<Database>, knowledgeBaseId: number, documentId: number): Promise<KbDocumentRow | undefined> {
  return db.selectFrom('kb_documents').selectAll().where('id', '=', documentId).where('knowledge_base_id', '=', knowledgeBaseId).executeTakeFirst();
}

/** A knowledge base's documents, newest first, each with the id of its latest job. */
export async function listDocuments(db: Kysely<Database>, knowledgeBaseId: number): Promise<Array<KbDocumentRow & { job_id: number | null }>> {
  return db
    .selectFrom('kb_documents')
    .selectAll('kb_documents')
    .select((eb) =>
      eb.selectFrom('ingestion_jobs').select((inner) => inner.fn.max('ingestion_jobs.id').as('id')).whereRef('ingestion_jobs.document_id', '=', 'kb_documents.id').as('job_id'),
    )
    .where('kb_documents.knowledge_base_id', '=', knowledgeBaseId)
    .orderBy('kb_documents.id', 'desc')
    .execute() as Promise<Array<KbDocumentRow & { job_id: number | null }>>;
}

/** Removes a document with its chunks and jobs; call inside a transaction. */
export async function deleteDocument(db: Kysely<Database>, documentId: number): Promise<void> {
  await db.deleteFrom('ingestion_jobs').where('document_id', '=', documentId).execute();
  await db.deleteFrom('kb_chunks').where('document_id', '=', documentId).execute();
  await db.deleteFrom('kb_documents').where('id', '=', documentId).execute();
}
