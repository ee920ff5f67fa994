/**
 * Documents of a knowledge base and their ingestion jobs: upload (stored in blob storage under
 * `knowledge/<knowledge base id>/<document id>`, its type checked by content, then
 * queued for the ingestion runner), list, download, delete, and the jobs' status, retry and
 * cancel. Permissions come from the knowledge base: changing needs `update`, reading `view`.
 * Documents that would take the organization past its `storage_gb` limit are refused.
 * Between writing a document's row and queuing its job, the uploading process holds the row
 * under a lease it renews (`upload_owner`), so an upload cut short by a killed process is told
 * apart from one still running in another process and marked failed as soon as it is orphaned.
 */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireKnowledgeBaseAction, type KnowledgeBaseAction } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { OrganizationLimits } from '../organizations/organization-controls.js';
import { requireStorageRoom } from '../organizations/organization-quotas.js';
import { displayFileName } from '../files/file-paths.js';
import { FileStorage } from '../files/file-storage.js';
import type { BlobStorage } from '../blobs/blob-storage.js';
import { appendAuditEntries, appendAuditEntry } from '../store/audit-log-repository.js';
import { auditEntryOf } from '../auth/call-context.js';
import {
  cancelIngestionJob,
  findIngestionJob,
  insertIngestionJobs,
  listIngestionJobs,
  retryIngestionJob,
  type IngestionJobRow,
} from '../store/ingestion-jobs-repository.js';
import {
  deleteDocument,
  findDocument,
  insertDocuments,
  listDocumentPage,
  type KnowledgeDocumentRow,
} from '../store/knowledge-documents-repository.js';
import { releaseUploadLeases, renewUploadLeases } from '../store/document-uploads-repository.js';
import { findKnowledgeBase, type KnowledgeBaseRecord, type NewDocument } from '../store/knowledge-repository.js';
import type { Database } from '../store/schema.js';
import { detectUploadedDocumentType } from '../document-reading/document-types.js';
import { asAppError } from '../ingestion/reading-refusals.js';
import { knowledgeBaseFacts } from './knowledge-base-service.js';
import type { DocumentView, JobView, QueuedDocument, TextDocumentInput } from './knowledge-document-schemas.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import { settleAll } from './settle-with-concurrency.js';
import { sweepUploadLeftovers, type LeftoverSweepCounts } from '../ingestion/upload-leftover-sweep.js';

/** Stored documents are named by their id; an upload still streaming in has a random temporary name. */
const DOCUMENT_STORED_NAME = /^(?:[0-9a-f]{32}\.upload|[1-9][0-9]{0,9})$/;
const UPLOAD_EXTENSION = 'upload';

/** The storage of knowledge-base documents: blobs `knowledge/<knowledge base id>/<document id>`. */
export function knowledgeDocumentStorage(blobs: BlobStorage): FileStorage {
  return new FileStorage(blobs, { folder: 'knowledge', storedNamePattern: DOCUMENT_STORED_NAME });
}

export interface DocumentUpload {
  fileName: string;
  stream: AsyncIterable<Uint8Array>;
  /** Copied into every chunk's metadata. */
  metadata?: Record<string, unknown>;
  sourceUrl?: string | null;
}

/** A document checked and ready to be recorded and queued. */
interface CheckedDocument {
  fileName: string;
  contentType: string;
  metadata: Record<string, unknown>;
  sourceUrl: string | null;
  sizeBytes: number;
}

/**
 * How a batch's files come to be named by their documents' ids once the rows exist: an upload
 * streamed in under a staged name is renamed; texts in hand are written straight under the ids.
 */
interface FilePlacement {
  place: (documentIds: readonly number[]) => Promise<void>;
  /** Files written before the rows (a staged upload), removed when the batch fails. */
  stagedNames: readonly string[];
}

/** A text of LAMB's JSON form, checked and ready to store. */
interface PreparedText {
  fileName: string;
  text: string;
  metadata: Record<string, unknown>;
  sourceUrl: string | null;
}

interface QueuedBatch {
  context: CallContext;
  record: KnowledgeBaseRecord;
  documents: readonly CheckedDocument[];
  documentIds: readonly number[];
}

/** A document's metadata is copied into each of its chunks, so it stays small. */
export const TEXT_DOCUMENT_METADATA_BYTES_MAXIMUM = 8_192;
const TEXT_EXTENSIONS = /\.(?:txt|text|md|markdown|vtt|srt)$/i;

/** `metadata.filename` or `metadata.title`, kept as a text name (`.txt` added unless it is .txt or .md). */
function textDocumentName(metadata: Record<string, unknown>, index: number): string {
  const given = [metadata.filename, metadata.title].find((value): value is string => typeof value === 'string' && value.trim() !== '');
  const name = displayFileName(given ?? `document-${index + 1}`);
  return TEXT_EXTENSIONS.test(name) ? name : `${name}.txt`;
}

function sourceUrlOf(metadata: Record<string, unknown>): string | null {
  const candidate = [metadata.source_url, metadata.url].find((value): value is string => typeof value === 'string');
  return candidate !== undefined && /^https?:\/\/\S+$/i.test(candidate) ? candidate : null;
}

function documentView(row: KnowledgeDocumentRow & { job_id?: number | null }): DocumentView {
  return {
    id: row.id,
    file_name: row.file_name,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    page_count: row.page_count,
    status: row.status,
    error: row.error,
    chunk_count: row.chunk_count,
    job_id: row.job_id ?? null,
    source_url: row.source_url,
    last_checked_at: row.last_checked_at,
    refresh_outcome: row.refresh_outcome as DocumentView['refresh_outcome'],
    refresh_error: row.refresh_error,
    refresh_every_seconds: row.refresh_every_seconds,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function jobView(row: IngestionJobRow): JobView {
  const total = row.progress_total;
  const percentage = row.status === 'completed' ? 100 : total > 0 ? Math.min(100, Math.round((row.progress_current / total) * 100)) : 0;
  return {
    id: row.id,
    document_id: row.document_id,
    status: row.status,
    progress: { current: row.progress_current, total, percentage, message: row.message },
    error: row.error,
    attempts: row.attempts,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface KnowledgeDocumentServiceOptions {
  db: Kysely<Database>;
  storage: FileStorage;
  bytesMaximum: number;
  textDocumentsMaximum: number;
  /** This process, as it signs the uploads it holds (runner-identity.ts). */
  uploadOwner: string;
  /** How long an upload stays its process's without renewal (renewed every third of it). */
  uploadLeaseMilliseconds: number;
  /** How many texts of one JSON request are written to storage at once (KB_JSON_WRITES_IN_FLIGHT). */
  textWritesInFlight: number;
  /** The organization's limits: `storage_gb` refuses documents past it (organization-quotas.ts). */
  limitsFor: (organizationId: number) => Promise<OrganizationLimits>;
}

export class KnowledgeDocumentService {
  private readonly db: Kysely<Database>;
  private readonly storage: FileStorage;
  private readonly bytesMaximum: number;
  private readonly textDocumentsMaximum: number;

  constructor(private readonly options: KnowledgeDocumentServiceOptions) {
    this.db = options.db;
    this.storage = options.storage;
    this.bytesMaximum = options.bytesMaximum;
    this.textDocumentsMaximum = options.textDocumentsMaximum;
  }

  /** Rejects unless the caller may add documents to the knowledge base: checked before a page is fetched for it. */
  async requireChange(context: CallContext, knowledgeBaseId: number): Promise<void> {
    await this.load(context, knowledgeBaseId, 'update');
  }

  private async load(context: CallContext, id: number, action: KnowledgeBaseAction): Promise<KnowledgeBaseRecord> {
    const record = await findKnowledgeBase(this.db, id);
    if (!record) throw new AppError('not_found', 'Knowledge base not found.');
    requireKnowledgeBaseAction(context.identity, knowledgeBaseFacts(record), action);
    return record;
  }

  private async document(knowledgeBaseId: number, documentId: number): Promise<KnowledgeDocumentRow> {
    const row = await findDocument(this.db, knowledgeBaseId, documentId);
    if (!row) throw new AppError('not_found', 'Document not found.');
    return row;
  }

  private async job(knowledgeBaseId: number, jobId: number): Promise<IngestionJobRow> {
    const row = await findIngestionJob(this.db, jobId);
    if (!row || row.knowledge_base_id !== knowledgeBaseId) throw new AppError('not_found', 'Ingestion job not found.');
    return row;
  }

  /**
   * Streams the upload to disk under the size limit, checks its type by content, then records the
   * document, names the file by its id and queues its job. Whatever fails removes what was written.
   */
  async upload(context: CallContext, knowledgeBaseId: number, input: DocumentUpload): Promise<QueuedDocument> {
    const record = await this.load(context, knowledgeBaseId, 'update');
    // A full organization is refused before the bytes stream in; queueDocuments checks again once the size is known.
    const limits = await this.options.limitsFor(record.organization_id);
    await requireStorageRoom(this.db, { organizationId: record.organization_id, addedBytes: 1, limits });
    const fileName = displayFileName(input.fileName);
    const stored = await this.storage
      .store(record.id, input.stream, { bytesMaximum: this.bytesMaximum, extension: UPLOAD_EXTENSION })
      .catch((error: unknown) => this.uploadFailure(record.id, error));
    let contentType: string;
    try {
      const bytes = await this.storage.readAll(record.id, stored.storedName);
      if (bytes === undefined) throw new Error('The uploaded file vanished before it could be checked.');
      // On the event loop: a text file is checked a slice at a time; archives and PDFs are only looked at here, read in the document worker.
      contentType = (await detectUploadedDocumentType({ fileName, bytes })).contentType;
    } catch (error) {
      await this.storage.remove(record.id, stored.storedName).catch(() => undefined);
      return await this.uploadFailure(record.id, asAppError(error));
    }
    const document = {
      fileName,
      contentType,
      metadata: input.metadata ?? {},
      sourceUrl: input.sourceUrl ?? null,
      sizeBytes: stored.sizeBytes,
    };
    const [queued] = await this.queueDocuments(context, record, [document], {
      stagedNames: [stored.storedName],
      place: async ([documentId]) => await this.storage.rename(record.id, stored.storedName, String(documentId)),
    });
    return queued!;
  }

  /**
   * Records checked documents, puts their files under their ids and queues their jobs: every row
   * in one transaction, then every job with its audit entry in another, each kind of row written in
   * one statement, so a batch of texts costs two commits and a handful of statements. A row holds
   * its upload lease until its job is queued; whatever fails removes every row and file of the batch.
   */
  private async queueDocuments(
    context: CallContext,
    record: KnowledgeBaseRecord,
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
      documentIds = await this.db.transaction().execute((transaction) =>
        insertDocuments(
          transaction,
          documents.map((document) => this.newDocumentRow(record.id, document)),
        ),
      );
      heartbeat = this.renewUploadLeasesWhileRunning(documentIds);
      // Named by their ids before their jobs exist, so a runner never claims a job whose file is not in place.
      await files.place(documentIds);
      const jobIds = await this.db
        .transaction()
        .execute((transaction) => this.queueJobs(transaction, { context, record, documents, documentIds }));
      return documentIds.map((documentId, index) => ({ document_id: documentId, job_id: jobIds[index]! }));
    } catch (error) {
      await this.discardFiles(record.id, [...files.stagedNames, ...documentIds.map(String)]);
      await this.discardRows(documentIds);
      return await this.uploadFailure(record.id, error);
    } finally {
      clearInterval(heartbeat);
    }
  }

  private newDocumentRow(knowledgeBaseId: number, document: CheckedDocument): NewDocument {
    return {
      knowledgeBaseId,
      fileName: document.fileName,
      contentType: document.contentType,
      sizeBytes: document.sizeBytes,
      sourceUrl: document.sourceUrl,
      status: 'pending',
      metadata: document.metadata,
      upload: { owner: this.options.uploadOwner, leaseExpiresAt: this.uploadLeaseEnd() },
    };
  }

  private async queueJobs(transaction: Kysely<Database>, batch: QueuedBatch): Promise<number[]> {
    const { context, record, documents, documentIds } = batch;
    if (!(await releaseUploadLeases(transaction, documentIds, this.options.uploadOwner))) {
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

  /**
   * The error an upload fails with: when its knowledge base was deleted while the bytes streamed
   * in, whichever step broke first (its folder gone, its row gone), the answer is that it is not
   * found, never a 500.
   */
  private async uploadFailure(knowledgeBaseId: number, error: unknown): Promise<never> {
    const current = await findKnowledgeBase(this.db, knowledgeBaseId);
    if (current === undefined || current.deleted_at !== null)
      throw new AppError('not_found', 'The knowledge base was deleted while the document was being uploaded.');
    throw error;
  }

  /**
   * LAMB's JSON form: each text becomes a document of its own (stored as a text file, so its
   * content can be downloaded like an upload's) with its own ingestion job. Everything is checked
   * before the first document is written.
   */
  async addTexts(
    context: CallContext,
    knowledgeBaseId: number,
    documents: readonly TextDocumentInput[],
  ): Promise<{ documents: QueuedDocument[] }> {
    if (documents.length > this.textDocumentsMaximum) {
      throw new AppError(
        'invalid_body',
        `At most ${this.textDocumentsMaximum} documents can be sent at once; split them over several requests.`,
        { param: 'documents' },
      );
    }
    const prepared = documents.map((document, index): PreparedText => {
      const metadata = document.metadata ?? {};
      // Measured, not encoded: the bytes of each text are made only when it is stored, one at a time.
      const byteLength = Buffer.byteLength(document.text, 'utf8');
      if (document.text.trim() === '')
        throw new AppError('invalid_body', `Document ${index + 1} has no text.`, { param: `documents[${index}].text` });
      if (byteLength > this.bytesMaximum)
        throw new AppError('file_too_large', `Document ${index + 1} is larger than ${this.bytesMaximum} bytes.`, {
          param: `documents[${index}].text`,
        });
      if (Buffer.byteLength(JSON.stringify(metadata)) > TEXT_DOCUMENT_METADATA_BYTES_MAXIMUM) {
        throw new AppError(
          'invalid_body',
          `The metadata of document ${index + 1} is larger than ${TEXT_DOCUMENT_METADATA_BYTES_MAXIMUM} bytes.`,
          { param: `documents[${index}].metadata` },
        );
      }
      return { fileName: textDocumentName(metadata, index), text: document.text, metadata, sourceUrl: sourceUrlOf(metadata) };
    });
    const record = await this.load(context, knowledgeBaseId, 'update');
    const checked: CheckedDocument[] = [];
    for (const { text, ...document } of prepared) {
      // Checked from the text in hand before anything is written: a refused text leaves nothing behind.
      const { contentType } = await detectUploadedDocumentType({ fileName: document.fileName, bytes: Buffer.from(text, 'utf8') }).catch(
        (error: unknown) => {
          throw asAppError(error);
        },
      );
      checked.push({ ...document, contentType, sizeBytes: Buffer.byteLength(text, 'utf8') });
    }
    const queued = await this.queueDocuments(context, record, checked, {
      stagedNames: [],
      place: (documentIds) => this.writeTexts(record.id, prepared, documentIds),
    });
    return { documents: queued };
  }

  /**
   * Writes every text of a batch straight under its document's id, KB_JSON_WRITES_IN_FLIGHT at a
   * time (each write waits on the disk's sync, so writing them together takes little longer than
   * writing one). When any fails, the caller removes every file and row of the batch.
   */
  private async writeTexts(knowledgeBaseId: number, texts: readonly PreparedText[], documentIds: readonly number[]): Promise<void> {
    const outcomes = await settleAll(
      texts.map((text, index) => async () => {
        await this.storage.storeUnder(
          knowledgeBaseId,
          String(documentIds[index]),
          Readable.from([Buffer.from(text.text, 'utf8')]),
          this.bytesMaximum,
        );
      }),
      this.options.textWritesInFlight,
    );
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
  }

  /** Fails orphaned uploads and removes stale upload files (upload-leftover-sweep.ts). */
  async sweepLeftovers(graceMilliseconds: number): Promise<LeftoverSweepCounts> {
    return await sweepUploadLeftovers({ db: this.db, storage: this.storage }, graceMilliseconds);
  }

  async list(context: CallContext, knowledgeBaseId: number, page: PageBounds): Promise<{ items: DocumentView[]; total: number }> {
    const record = await this.load(context, knowledgeBaseId, 'view');
    const documents = await listDocumentPage(this.db, record.id, page);
    return { items: documents.items.map(documentView), total: documents.total };
  }

  async get(context: CallContext, knowledgeBaseId: number, documentId: number): Promise<DocumentView> {
    const record = await this.load(context, knowledgeBaseId, 'view');
    return documentView(await this.document(record.id, documentId));
  }

  /** The original bytes as uploaded, streamed from blob storage, with the content type found for them. */
  async content(
    context: CallContext,
    knowledgeBaseId: number,
    documentId: number,
  ): Promise<{ stream: Readable; sizeBytes: number; contentType: string; fileName: string }> {
    const record = await this.load(context, knowledgeBaseId, 'view');
    const row = await this.document(record.id, documentId);
    const stream = await this.storage.open(record.id, String(row.id));
    if (stream === undefined) throw new AppError('not_found', 'The stored file of this document is missing.');
    return {
      stream: stream instanceof Readable ? stream : Readable.from(stream),
      sizeBytes: row.size_bytes,
      contentType: row.content_type,
      fileName: row.file_name,
    };
  }

  /** Removes the document, its chunks and jobs, then its stored file. */
  async delete(context: CallContext, knowledgeBaseId: number, documentId: number): Promise<void> {
    const record = await this.load(context, knowledgeBaseId, 'update');
    const row = await this.document(record.id, documentId);
    await this.db.transaction().execute(async (transaction) => {
      await deleteDocument(transaction, row.id);
      await appendAuditEntry(
        transaction,
        auditEntryOf(
          context,
          { type: 'knowledge_base', id: record.id, organizationId: record.organization_id },
          'knowledge_base.document_delete',
          { document_id: row.id },
        ),
      );
    });
    await this.storage.remove(record.id, String(row.id));
  }

  async listJobs(context: CallContext, knowledgeBaseId: number, page: PageBounds): Promise<{ items: JobView[]; total: number }> {
    const record = await this.load(context, knowledgeBaseId, 'view');
    const jobs = await listIngestionJobs(this.db, record.id, page);
    return { items: jobs.items.map(jobView), total: jobs.total };
  }

  async getJob(context: CallContext, knowledgeBaseId: number, jobId: number): Promise<JobView> {
    const record = await this.load(context, knowledgeBaseId, 'view');
    return jobView(await this.job(record.id, jobId));
  }

  async retryJob(context: CallContext, knowledgeBaseId: number, jobId: number): Promise<JobView> {
    const record = await this.load(context, knowledgeBaseId, 'update');
    const job = await this.job(record.id, jobId);
    const retried = await this.db.transaction().execute((transaction) => retryIngestionJob(transaction, job));
    if (!retried) throw new AppError('job_state_conflict', `Only a failed or cancelled job can be retried; this one is ${job.status}.`);
    return jobView(await this.job(record.id, jobId));
  }

  async cancelJob(context: CallContext, knowledgeBaseId: number, jobId: number): Promise<JobView> {
    const record = await this.load(context, knowledgeBaseId, 'update');
    const job = await this.job(record.id, jobId);
    const cancelled = await this.db.transaction().execute((transaction) => cancelIngestionJob(transaction, job));
    if (!cancelled)
      throw new AppError('job_state_conflict', `Only a pending or processing job can be cancelled; this one is ${job.status}.`);
    return jobView(await this.job(record.id, jobId));
  }
}
