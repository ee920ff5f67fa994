/**
 * Ingestion jobs: queued with their documents (several in one statement), worked on by the runner
 * that holds them (progress, lease renewals and the end, each for several jobs in one statement,
 * and only while that runner still holds them), listed, cancelled and retried. How runners claim
 * jobs is ingestion-job-claims-repository.ts; the documents' rows are knowledge-documents-repository.ts.
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import { setDocumentStatus } from './knowledge-documents-repository.js';
import { insertRowBatchReturningIds, type RowBatchShape } from './row-batch-insert.js';
import { nowTimestamp, type Database, type IngestionJobsTable } from './schema.js';
import type { PageBounds } from '../validation/page-query-schema.js';

export type IngestionJobRow = Selectable<IngestionJobsTable>;

/** A newly queued job's row, as insertIngestionJobs writes it. */
const NEW_JOB_ROW: RowBatchShape = {
  table: 'ingestion_jobs',
  columns: [
    'knowledge_base_id',
    'document_id',
    'status',
    'progress_current',
    'progress_total',
    'message',
    'attempts',
    'attempts_since_queued',
    'created_at',
    'updated_at',
    'requested_by',
  ],
  postgresTypes: ['integer', 'integer', 'text', 'integer', 'integer', 'text', 'integer', 'integer', 'text', 'text', 'integer'],
};

/** Queues one pending job per document, in one statement; answers the jobs' ids in the documents' order. */
export async function insertIngestionJobs(
  db: Kysely<Database>,
  jobs: { knowledgeBaseId: number; documentIds: readonly number[]; requestedBy: number },
): Promise<number[]> {
  if (jobs.documentIds.length === 0) return [];
  const timestamp = nowTimestamp();
  // Left out, so the store's defaults of null: error, lease_owner, lease_expires_at and finished_at.
  const values = jobs.documentIds.flatMap((documentId) => [
    jobs.knowledgeBaseId,
    documentId,
    'pending',
    0,
    0,
    'Waiting to be processed.',
    0,
    0,
    timestamp,
    timestamp,
    jobs.requestedBy,
  ]);
  return insertRowBatchReturningIds(db, NEW_JOB_ROW, values);
}

/** Applies `changes` to the jobs `owner` still holds; answers their ids (a job cancelled or taken over is left out). */
async function updateHeldJobs(
  db: Kysely<Database>,
  jobIds: readonly number[],
  owner: string,
  changes: Updateable<IngestionJobsTable>,
): Promise<Set<number>> {
  if (jobIds.length === 0) return new Set();
  const rows = await db
    .updateTable('ingestion_jobs')
    .set(changes)
    .where('id', 'in', jobIds)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'processing')
    .returning('id')
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Extends the lease of the jobs `owner` still holds. */
export async function renewIngestionLeases(
  db: Kysely<Database>,
  jobIds: readonly number[],
  owner: string,
  leaseExpiresAt: string,
): Promise<Set<number>> {
  return updateHeldJobs(db, jobIds, owner, { lease_expires_at: leaseExpiresAt });
}

/** Records the same progress on the jobs `owner` still holds (and extends their lease); answers their ids. */
export async function updateIngestionProgress(
  db: Kysely<Database>,
  jobIds: readonly number[],
  owner: string,
  progress: { current: number; total: number; message: string; leaseExpiresAt: string },
): Promise<Set<number>> {
  return updateHeldJobs(db, jobIds, owner, {
    progress_current: progress.current,
    progress_total: progress.total,
    message: progress.message,
    lease_expires_at: progress.leaseExpiresAt,
    updated_at: nowTimestamp(),
  });
}

export interface JobOutcome {
  status: 'completed' | 'failed';
  message: string;
  error: string | null;
  progressTotal: number;
}

/**
 * Ends the jobs `owner` still holds with the same outcome; answers their ids. Their documents'
 * status is the caller's to set (in the same transaction), for the ids answered only.
 */
export async function finishIngestionJobs(
  db: Kysely<Database>,
  jobIds: readonly number[],
  owner: string,
  outcome: JobOutcome,
): Promise<Set<number>> {
  const timestamp = nowTimestamp();
  return updateHeldJobs(db, jobIds, owner, {
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
}

/** Ends one job `owner` holds as completed or failed, with its document; false when it no longer holds it. Call inside a transaction. */
export async function finishIngestionJob(
  db: Kysely<Database>,
  job: Pick<IngestionJobRow, 'id' | 'document_id'>,
  owner: string,
  outcome: JobOutcome,
): Promise<boolean> {
  const held = await finishIngestionJobs(db, [job.id], owner, outcome);
  if (!held.has(job.id)) return false;
  await setDocumentStatus(db, job.document_id, outcome.status, outcome.error);
  return true;
}

/** The job's status as stored now, for a runner checking whether it was cancelled or taken over. */
export async function findIngestionJob(db: Kysely<Database>, jobId: number): Promise<IngestionJobRow | undefined> {
  return db.selectFrom('ingestion_jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
}

/** A page of a knowledge base's jobs, newest first; ordered by id alone, so pages never overlap while jobs change status. */
export async function listIngestionJobs(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  page: PageBounds,
): Promise<{ items: IngestionJobRow[]; total: number }> {
  const ofKnowledgeBase = db.selectFrom('ingestion_jobs').where('knowledge_base_id', '=', knowledgeBaseId);
  const items = await ofKnowledgeBase.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  const { total } = await ofKnowledgeBase.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

/** Cancels a pending or processing job (and marks its document cancelled); false when it had already ended. */
export async function cancelIngestionJob(db: Kysely<Database>, job: Pick<IngestionJobRow, 'id' | 'document_id'>): Promise<boolean> {
  const timestamp = nowTimestamp();
  const result = await db
    .updateTable('ingestion_jobs')
    .set({
      status: 'cancelled',
      message: 'Cancelled.',
      lease_owner: null,
      lease_expires_at: null,
      updated_at: timestamp,
      finished_at: timestamp,
    })
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
    .set({
      status: 'pending',
      message: 'Waiting to be processed.',
      error: null,
      progress_current: 0,
      progress_total: 0,
      // Queued again on purpose: the attempts cap counts afresh.
      attempts_since_queued: 0,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: nowTimestamp(),
      finished_at: null,
    })
    .where('id', '=', job.id)
    .where('status', 'in', ['failed', 'cancelled'])
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await setDocumentStatus(db, job.document_id, 'pending', null);
  return true;
}
