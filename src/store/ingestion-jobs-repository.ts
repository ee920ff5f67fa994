/**
 * Ingestion jobs and the document rows they drive. A runner claims one job with a single UPDATE
 * whose subquery picks the oldest pending job or a processing one whose lease has expired:
 * SQLite takes its write lock before that statement reads anything, and PostgreSQL locks the
 * chosen row with FOR UPDATE SKIP LOCKED, so two runners never claim the same job at once.
 * A job left processing under an expired lease was cut short (its process died or stalled); once
 * that has happened as often as the attempts cap allows, the claim fails the job instead of
 * starting it again, so one document that kills the server cannot keep killing it after every
 * restart. The cap is decided here, in the store, because every process sharing it must agree.
 */
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Dialect } from './dialect.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import { removeUnmentionedEntities } from './entity-graph-repository.js';
import { nowTimestamp, type Database, type DocumentStatus, type IngestionJobsTable, type KnowledgeDocumentsTable } from './schema.js';

export type IngestionJobRow = Selectable<IngestionJobsTable>;
export type KnowledgeDocumentRow = Selectable<KnowledgeDocumentsTable>;

export async function insertIngestionJob(
  db: Kysely<Database>,
  job: { knowledgeBaseId: number; documentId: number; requestedBy: number },
): Promise<IngestionJobRow> {
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
      attempts_since_queued: 0,
      lease_owner: null,
      lease_expires_at: null,
      created_at: timestamp,
      updated_at: timestamp,
      finished_at: null,
      requested_by: job.requestedBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface IngestionClaim {
  /** The runner claiming, as written in `lease_owner`. */
  owner: string;
  leaseExpiresAt: string;
  /** INGESTION_ATTEMPTS_MAX: a job cut short after this many starts since it was queued fails instead of starting again. */
  attemptsMaximum: number;
  /**
   * The jobs the claiming runner is still working on: never taken over or failed by its own claim,
   * even when their lease has run out (a runner holds several jobs at once, all under one owner name).
   */
  heldJobIds?: readonly number[];
}

export interface IngestionClaimResult {
  /** The job now held by the claiming runner, if there was one to take. */
  job: IngestionJobRow | undefined;
  /** Jobs this claim failed because they had been cut short as often as the cap allows. */
  failedJobs: Array<{ id: number; documentId: number; attempts: number }>;
}

/** The reason a job fails once the server stopped mid-way through it as often as the cap allows: a sentence for the creator. */
export function serverStoppedMessage(times: number): string {
  const count = times === 1 ? 'once' : `${times} times`;
  return `The server stopped ${count} while processing this document, so it is not started again automatically: the document may be too large or too complex for this server. Check the file (or split it into smaller ones), then retry the job or upload it again.`;
}

/** Fails, with their documents, the jobs cut short (processing under an expired lease) that have used up their attempts. */
async function failExhaustedJobs(db: Kysely<Database>, claim: IngestionClaim, now: string): Promise<IngestionClaimResult['failedJobs']> {
  const { attemptsMaximum, heldJobIds = [] } = claim;
  const exhausted = await db
    .selectFrom('ingestion_jobs')
    .select(['id', 'document_id', 'attempts_since_queued'])
    .where('status', '=', 'processing')
    .$if(heldJobIds.length > 0, (query) => query.where('id', 'not in', heldJobIds))
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
    .where('attempts_since_queued', '>=', attemptsMaximum)
    .orderBy('id')
    .execute();
  const failed: IngestionClaimResult['failedJobs'] = [];
  for (const candidate of exhausted) {
    const error = serverStoppedMessage(candidate.attempts_since_queued);
    const ended = await db.transaction().execute(async (transaction) => {
      // The same conditions again: of several processes failing the job at once, exactly one does.
      const result = await transaction
        .updateTable('ingestion_jobs')
        .set({ status: 'failed', message: 'Failed.', error, lease_owner: null, lease_expires_at: null, updated_at: now, finished_at: now })
        .where('id', '=', candidate.id)
        .where('status', '=', 'processing')
        .where('attempts_since_queued', '=', candidate.attempts_since_queued)
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await setDocumentStatus(transaction, candidate.document_id, 'failed', error);
      return true;
    });
    if (ended) failed.push({ id: candidate.id, documentId: candidate.document_id, attempts: candidate.attempts_since_queued });
  }
  return failed;
}

/**
 * Fails the jobs that were cut short too often, then claims the oldest job that is pending, or
 * processing under a lease that expired (its runner died) with attempts left, for `claim.owner`
 * until `claim.leaseExpiresAt`.
 */
export async function claimIngestionJob(db: Kysely<Database>, dialect: Dialect, claim: IngestionClaim): Promise<IngestionClaimResult> {
  const now = nowTimestamp();
  const failedJobs = await failExhaustedJobs(db, claim, now);
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const held = claim.heldJobIds ?? [];
  const notHeld = held.length === 0 ? sql`` : sql`and id not in (${sql.join(held)})`;
  const result = await sql<IngestionJobRow>`
    update ingestion_jobs
    set status = 'processing', lease_owner = ${claim.owner}, lease_expires_at = ${claim.leaseExpiresAt},
        attempts = attempts + 1, attempts_since_queued = attempts_since_queued + 1,
        progress_current = 0, progress_total = 0, message = 'Started.', error = null, updated_at = ${now}
    where id = (
      select id from ingestion_jobs
      where (status = 'pending'
         or (status = 'processing' and (lease_expires_at is null or lease_expires_at < ${now}) and attempts_since_queued < ${claim.attemptsMaximum}))
        ${notHeld}
      order by id
      limit 1
      ${lock}
    )
    returning *`.execute(db);
  return { job: result.rows[0], failedJobs };
}

/** Who holds the jobs being processed now: a start-up check looks for holders whose process has died. */
export async function listIngestionLeaseOwners(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('ingestion_jobs')
    .select('lease_owner')
    .distinct()
    .where('status', '=', 'processing')
    .where('lease_owner', 'is not', null)
    .execute();
  return rows.map((row) => row.lease_owner).filter((owner): owner is string => owner !== null);
}

/**
 * Ends at once the leases `owners` hold on processing jobs, so that the next claim takes those
 * jobs over (counting the attempt like any other); only for owners known to be dead.
 */
export async function expireIngestionLeases(db: Kysely<Database>, owners: readonly string[]): Promise<number> {
  if (owners.length === 0) return 0;
  const result = await db
    .updateTable('ingestion_jobs')
    .set({ lease_expires_at: null, updated_at: nowTimestamp() })
    .where('status', '=', 'processing')
    .where('lease_owner', 'in', owners)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Applies `changes` while `owner` still holds the job; false when it no longer does (cancelled, taken over). */
async function updateHeldJob(
  db: Kysely<Database>,
  jobId: number,
  owner: string,
  changes: Updateable<IngestionJobsTable>,
): Promise<boolean> {
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

/** Marks the job's document processing, only while `owner` still holds the job (so a cancellation in between is not overwritten). */
export async function markDocumentProcessing(
  db: Kysely<Database>,
  job: Pick<IngestionJobRow, 'id' | 'document_id'>,
  owner: string,
): Promise<boolean> {
  const result = await db
    .updateTable('kb_documents')
    .set({ status: 'processing', error: null, updated_at: nowTimestamp() })
    .where('id', '=', job.document_id)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('ingestion_jobs')
          .select('ingestion_jobs.id')
          .where('ingestion_jobs.id', '=', job.id)
          .where('ingestion_jobs.lease_owner', '=', owner)
          .where('ingestion_jobs.status', '=', 'processing'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setDocumentStatus(
  db: Kysely<Database>,
  documentId: number,
  status: DocumentStatus,
  error: string | null,
): Promise<void> {
  await db.updateTable('kb_documents').set({ status, error, updated_at: nowTimestamp() }).where('id', '=', documentId).execute();
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
  await db.deleteFrom('kb_documents').where('id', '=', documentId).execute();
  if (document !== undefined) await removeUnmentionedEntities(db, document.knowledge_base_id);
}

/** A pending document without a job: an upload between writing its row and queuing its job, live or interrupted. */
export type UploadInProgress = Pick<
  KnowledgeDocumentRow,
  'id' | 'knowledge_base_id' | 'upload_owner' | 'upload_lease_expires_at' | 'created_at'
>;

/** Every pending document that has no job yet; only uploads in progress (or cut short) are in this state, so the list is short. */
export async function listUploadsInProgress(db: Kysely<Database>): Promise<UploadInProgress[]> {
  return db
    .selectFrom('kb_documents')
    .select(['id', 'knowledge_base_id', 'upload_owner', 'upload_lease_expires_at', 'created_at'])
    .where('status', '=', 'pending')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('ingestion_jobs').select('ingestion_jobs.id').whereRef('ingestion_jobs.document_id', '=', 'kb_documents.id'),
        ),
      ),
    )
    .orderBy('id')
    .execute();
}

/** Extends the upload's lease while `owner` still holds it; false when it no longer does (the sweep marked it interrupted). */
export async function renewUploadLease(db: Kysely<Database>, documentId: number, owner: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('kb_documents')
    .set({ upload_lease_expires_at: until })
    .where('id', '=', documentId)
    .where('upload_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Ends `owner`'s hold on the upload as its job is queued; call it in the transaction that inserts
 * the job. False when the sweep has already marked the upload interrupted: the caller must not
 * queue a job then. The row this updates is the one the sweep's update must also match, so on
 * PostgreSQL whichever comes second sees the other's change and does nothing.
 */
export async function releaseUploadLease(db: Kysely<Database>, documentId: number, owner: string): Promise<boolean> {
  const result = await db
    .updateTable('kb_documents')
    .set({ upload_owner: null, upload_lease_expires_at: null })
    .where('id', '=', documentId)
    .where('upload_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Marks an upload that `listUploadsInProgress` found as interrupted: failed, with `reason`, its
 * hold ended. Only while it is still pending, jobless and held by the same owner (or by none, as
 * found), so an upload that queued its job meanwhile is left alone. False when nothing changed.
 */
export async function markUploadInterrupted(db: Kysely<Database>, upload: UploadInProgress, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('kb_documents')
    .set({ status: 'failed', error: reason, upload_owner: null, upload_lease_expires_at: null, updated_at: nowTimestamp() })
    .where('id', '=', upload.id)
    .where('status', '=', 'pending')
    .where((eb) => (upload.upload_owner === null ? eb('upload_owner', 'is', null) : eb('upload_owner', '=', upload.upload_owner)))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('ingestion_jobs').select('ingestion_jobs.id').whereRef('ingestion_jobs.document_id', '=', 'kb_documents.id'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Which of `documentIds` are documents of the knowledge base whose bytes are kept: files named by
 * any other id belong to no document, or to an upload marked interrupted (failed without a job;
 * a failed ingestion always has its job), whose bytes nothing will read.
 */
export async function documentIdsWithKeptBytes(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  documentIds: readonly number[],
): Promise<Set<number>> {
  const existing = new Set<number>();
  for (let start = 0; start < documentIds.length; start += 500) {
    const slice = documentIds.slice(start, start + 500);
    const rows = await db
      .selectFrom('kb_documents')
      .select('id')
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .where('id', 'in', slice)
      .where((eb) =>
        eb.or([
          eb('status', '!=', 'failed'),
          eb.exists(
            eb.selectFrom('ingestion_jobs').select('ingestion_jobs.id').whereRef('ingestion_jobs.document_id', '=', 'kb_documents.id'),
          ),
        ]),
      )
      .execute();
    for (const row of rows) existing.add(row.id);
  }
  return existing;
}
