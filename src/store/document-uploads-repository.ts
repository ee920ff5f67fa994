/**
 * Uploads in progress: a document's row is written before its job, and between the two the
 * uploading process holds the row under a lease it renews (`upload_owner`), so an upload cut short
 * by a killed process is told apart from one still running in another process and marked failed
 * (upload-leftover-sweep.ts). Also which stored files still belong to a document.
 */
import type { Kysely } from 'kysely';
import type { KnowledgeDocumentRow } from './knowledge-documents-repository.js';
import { nowTimestamp, type Database } from './schema.js';

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

/** Extends the uploads' leases while `owner` still holds them (the sweep marks an upload whose lease ran out interrupted). */
export async function renewUploadLeases(db: Kysely<Database>, documentIds: readonly number[], owner: string, until: string): Promise<void> {
  if (documentIds.length === 0) return;
  await db
    .updateTable('kb_documents')
    .set({ upload_lease_expires_at: until })
    .where('id', 'in', documentIds)
    .where('upload_owner', '=', owner)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Ends `owner`'s hold on the uploads as their jobs are queued; call it in the transaction that
 * inserts the jobs. False when the sweep has already marked any of them interrupted: the caller
 * must not queue the jobs then. The rows this updates are the ones the sweep's update must also
 * match, so on PostgreSQL whichever comes second sees the other's change and does nothing.
 */
export async function releaseUploadLeases(db: Kysely<Database>, documentIds: readonly number[], owner: string): Promise<boolean> {
  if (documentIds.length === 0) return true;
  const result = await db
    .updateTable('kb_documents')
    .set({ upload_owner: null, upload_lease_expires_at: null })
    .where('id', 'in', documentIds)
    .where('upload_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === documentIds.length;
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
