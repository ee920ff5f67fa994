/**
 * Records a batch of checked documents and queues their ingestion jobs: every row in one
 * transaction (with the texts kept in the store, small JSON texts), the files put under the rows'
 * ids, then every job with its audit entry in another. A batch with no file (all its texts kept in
 * the store) writes all of it in one transaction.
 * Between writing a document's row and queuing its job, this process holds the row under a lease
 * it renews (`upload_owner`), so an upload cut short by a killed process is told apart from one
 * still running in another process and marked failed as soon as it is orphaned.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { auditEntryOf } from '../auth/call-context.js';
import { AppError } from '../errors/app-error.js';
import type { FileStorage } from '../files/file-storage.js';
import type { OrganizationLimits } from '../organizations/organization-controls.js';
import { requireStorageRoom } from '../organizations/organization-quotas.js';
import { appendAuditEntries } from '../store/audit-log-repository.js';
import { insertDocumentTexts, type DocumentText } from '../store/document-texts-repository.js';
import { releaseUploadLeases, renewUploadLeases } from '../store/document-uploads-repository.js';
import { insertIngestionJobs } from '../store/ingestion-jobs-repository.js';
import { deleteDocument, insertDocuments } from '../store/knowledge-documents-repository.js';
import { findKnowledgeBaseRow, type KnowledgeBaseRow, type NewDocument } from '../store/knowledge-repository.js';
import type { Database } from '../store/schema.js';
import type { QueuedDocument } from './knowledge-document-schemas.js';
import { settleAll } from './settle-with-concurrency.js';

/** A document checked and ready to be recorded and queued. */
export interface CheckedDocument {
  fileName: string;
  contentType: string;
  metadata: Record<string, unknown>;
  sourceUrl: string | null;
  sizeBytes: number;
  /** The text itself, when it is kept in the store with the row (a small JSON text) rather than as a file. */
  storedText?: string;
}

/**
 * How a batch's files come to be named by their documents' ids once the rows exist: an upload
 * streamed in under a staged name is renamed; texts in hand are written straight under the ids.
 */
export interface FilePlacement {
  place: (documentIds: readonly number[]) => Promise<void>;
  /** Files written before the rows (a staged upload), removed when the batch fails. */
  stagedNames: readonly string[];
}

interface QueuedBatch {
  context: CallContext;
  record: KnowledgeBaseRow;
  documents: readonly CheckedDocument[];
  documentIds: readonly number[];
  /** Whether the rows were written with upload leases, which queueing the jobs releases. */
  leased: boolean;
}

export interface DocumentBatchQueueOptions {
  db: Kysely<Database>;
  storage: FileStorage;
  /** This process, as it signs the uploads it holds (runner-identity.ts). */
  uploadOwner: string;
  /** How long an upload stays its process's without renewal (renewed every third of it). */
  uploadLeaseMilliseconds: number;
  /** How many files of a failed batch are removed at once (KB_JSON_WRITES_IN_FLIGHT). */
  textWritesInFlight: number;
  /** The organization's limits: `storage_gb` refuses documents past it (organization-quotas.ts). */
  limitsFor: (organizationId: number) => Promise<OrganizationLimits>;
}

/**
 * The error an upload fails with: when its knowledge base was deleted while the bytes streamed
 * in, whichever step broke first (its folder gone, its row gone), the answer is that it is not
 * found, never a 500.
 */
export async function uploadFailure(db: Kysely<Database>, knowledgeBaseId: number, error: unknown): Promise<never> {
  const current = await findKnowledgeBaseRow(db, knowledgeBaseId);
  if (current === undefined || current.deleted_at !== null)
    throw new AppError('not_found', 'The knowledge base was deleted while the document was being uploaded.');
  throw error;
}

/** The texts of the batch that are kept in the store, under their documents' ids. */
function storedTextsOf(documents: readonly CheckedDocument[], documentIds: readonly number[]): DocumentText[] {
  return documents.flatMap((document, index) =>
    document.storedText === undefined ? [] : [{ documentId: documentIds[index]!, text: document.storedText }],
  );
}

/** Each document's id with its job's, in the batch's order. */
function queuedOf(documentIds: readonly number[], jobIds: readonly number[]): QueuedDocument[] {
  return documentIds.map((documentId, index) => ({ document_id: documentId, job_id: jobIds[index]! }));
}

export class DocumentBatchQueue {
  private readonly db: Kysely<Database>;
  private readonly storage: FileStorage;

  constructor(private readonly options: DocumentBatchQueueOptions) {
    this.db = options.db;
    this.storage = options.storage;
  }

  /**
   * Records checked documents, puts their files under their ids and queues their jobs: every row
   * in one transaction, then every job with its audit entry in another, each kind of row written in
   * one statement, so a batch of texts costs two commits and a handful of statements (one commit
   * when every text is kept in the store). A row holds
   * its upload lease until its job is queued; whatever fails removes every row and file of the batch.
   */
  async queue(
    context: CallContext,
    record: KnowledgeBaseRow,
    documents: readonly CheckedDocument[],
    files: FilePlacement,
  ): Promise<QueuedDocument[]> {
    let documentIds: number[] = [];
    let heartbeat: NodeJS.Timeout | undefined;
    try {
      await requireStorageRoom(this.db, {
        organizationId: record.organization_id,
        addedBytes: documents.reduce((total, document) => total + document.sizeBytes, 0),
        limits: await this.options.limitsFor(record.organization_id),
      });
      if (files.stagedNames.length === 0 && documents.every((document) => document.storedText !== undefined))
        return await this.db.transaction().execute((transaction) => this.queueStoredTexts(transaction, context, record, documents));
      documentIds = await this.db.transaction().execute((transaction) => this.insertRows(transaction, record, documents, true));
      heartbeat = this.renewUploadLeasesWhileRunning(documentIds);
      // Named by their ids before their jobs exist, so a runner never claims a job whose file is not in place.
      await files.place(documentIds);
      const jobIds = await this.db
        .transaction()
        .execute((transaction) => this.queueJobs(transaction, { context, record, documents, documentIds, leased: true }));
      return queuedOf(documentIds, jobIds);
    } catch (error) {
      await this.discardFiles(record.id, [...files.stagedNames, ...documentIds.map(String)]);
      await this.discardRows(documentIds);
      return await uploadFailure(this.db, record.id, error);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * A batch whose every text is kept in the store has no file to place: its rows, texts, jobs and
   * audit entries are written in one transaction, so none can exist without the others, and no
   * upload lease is needed to find what a killed upload left behind. One commit a batch, not two.
   */
  private async queueStoredTexts(
    transaction: Kysely<Database>,
    context: CallContext,
    record: KnowledgeBaseRow,
    documents: readonly CheckedDocument[],
  ): Promise<QueuedDocument[]> {
    const documentIds = await this.insertRows(transaction, record, documents, false);
    const jobIds = await this.queueJobs(transaction, { context, record, documents, documentIds, leased: false });
    return queuedOf(documentIds, jobIds);
  }

  /** The batch's rows, each with its text where the store keeps it; answers their ids in order. */
  private async insertRows(
    transaction: Kysely<Database>,
    record: KnowledgeBaseRow,
    documents: readonly CheckedDocument[],
    leased: boolean,
  ): Promise<number[]> {
    const documentIds = await insertDocuments(
      transaction,
      documents.map((document) => this.newDocumentRow(record.id, document, leased)),
    );
    // With their rows: a row never exists without its text, and no file is written, synced and read back for it.
    await insertDocumentTexts(transaction, storedTextsOf(documents, documentIds));
    return documentIds;
  }

  private newDocumentRow(knowledgeBaseId: number, document: CheckedDocument, leased: boolean): NewDocument {
    return {
      knowledgeBaseId,
      fileName: document.fileName,
      contentType: document.contentType,
      sizeBytes: document.sizeBytes,
      sourceUrl: document.sourceUrl,
      status: 'pending',
      metadata: document.metadata,
      ...(leased && { upload: { owner: this.options.uploadOwner, leaseExpiresAt: this.uploadLeaseEnd() } }),
    };
  }

  private async queueJobs(transaction: Kysely<Database>, batch: QueuedBatch): Promise<number[]> {
    const { context, record, documents, documentIds, leased } = batch;
    if (leased && !(await releaseUploadLeases(transaction, documentIds, this.options.uploadOwner))) {
      throw new AppError(
        'upload_interrupted',
        'This upload stalled for longer than its lease and was marked interrupted; upload the file again.',
      );
    }
    const jobIds = await insertIngestionJobs(transaction, {
      knowledgeBaseId: record.id,
      documentIds,
      requestedBy: context.identity.userId,
    });
    await appendAuditEntries(
      transaction,
      documentIds.map((documentId, index) =>
        auditEntryOf(
          context,
          { type: 'knowledge_base', id: record.id, organizationId: record.organization_id },
          'knowledge_base.document_upload',
          { document_id: documentId, content_type: documents[index]!.contentType, size_bytes: documents[index]!.sizeBytes },
        ),
      ),
    );
    return jobIds;
  }

  /** Removes the files a batch that failed had written: staged ones and those already named by their ids. */
  private async discardFiles(knowledgeBaseId: number, names: readonly string[]): Promise<void> {
    await settleAll(
      names.map((name) => () => this.storage.remove(knowledgeBaseId, name).catch(() => undefined)),
      this.options.textWritesInFlight,
    );
  }

  /** Removes the rows of a batch that failed. */
  private async discardRows(documentIds: readonly number[]): Promise<void> {
    if (documentIds.length === 0) return;
    await this.db
      .transaction()
      .execute(async (transaction) => {
        for (const documentId of documentIds) await deleteDocument(transaction, documentId);
      })
      .catch(() => undefined);
  }

  private uploadLeaseEnd(): string {
    return new Date(Date.now() + this.options.uploadLeaseMilliseconds).toISOString();
  }

  /** Keeps the uploads' rows this process's while the steps before their jobs run, however slow the storage is. */
  private renewUploadLeasesWhileRunning(documentIds: readonly number[]): NodeJS.Timeout {
    const renew = (): Promise<void> => renewUploadLeases(this.db, documentIds, this.options.uploadOwner, this.uploadLeaseEnd());
    const timer = setInterval(() => void renew().catch(() => undefined), Math.max(1, Math.floor(this.options.uploadLeaseMilliseconds / 3)));
    timer.unref();
    return timer;
  }
}
