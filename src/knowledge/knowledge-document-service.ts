/**
 * Documents of a knowledge base and their ingestion jobs: upload (stored in blob storage under
 * `knowledge/<knowledge base id>/<document id>`, its type checked by content, then recorded and
 * queued for the ingestion runner by document-batch-queue.ts), LAMB's JSON texts, list, download,
 * delete, and the jobs' status, retry and cancel. Permissions come from the knowledge base:
 * changing needs `update`, reading `view`. Documents that would take the organization past its
 * `storage_gb` limit are refused.
 */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import type { KnowledgeBaseAction } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { OrganizationLimits } from '../organizations/organization-controls.js';
import { requireStorageRoom } from '../organizations/organization-quotas.js';
import { displayFileName } from '../files/file-paths.js';
import { FileStorage } from '../files/file-storage.js';
import type { BlobStorage } from '../blobs/blob-storage.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { findDocumentText } from '../store/document-texts-repository.js';
import { auditEntryOf } from '../auth/call-context.js';
import {
  cancelIngestionJob,
  findIngestionJob,
  listIngestionJobs,
  retryIngestionJob,
  type IngestionJobRow,
} from '../store/ingestion-jobs-repository.js';
import { deleteDocument, findDocument, listDocumentPage, type KnowledgeDocumentRow } from '../store/knowledge-documents-repository.js';
import { findKnowledgeBaseRow, type KnowledgeBaseRow } from '../store/knowledge-repository.js';
import type { Database } from '../store/schema.js';
import { detectUploadedDocumentType } from '../document-reading/document-types.js';
import { SMALL_TEXT_BYTES_MAXIMUM } from '../ingestion/document-worker-pool.js';
import { asAppError } from '../ingestion/reading-refusals.js';
import { loadKnowledgeBase } from './knowledge-base-access.js';
import type { DocumentView, JobView, QueuedDocument, TextDocumentInput } from './knowledge-document-schemas.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import { settleAll } from './settle-with-concurrency.js';
import { DocumentBatchQueue, uploadFailure, type CheckedDocument } from './document-batch-queue.js';
import { documentView, jobView } from './knowledge-document-views.js';
import { prepareTexts, type PreparedText } from './text-documents.js';
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
  /** JSON texts of at most this many bytes are kept in the store with their rows rather than as files (KB_JSON_STORED_TEXT_BYTES_MAX). */
  storedTextBytesMaximum: number;
  /** The organization's limits: `storage_gb` refuses documents past it (organization-quotas.ts). */
  limitsFor: (organizationId: number) => Promise<OrganizationLimits>;
}

export class KnowledgeDocumentService {
  private readonly db: Kysely<Database>;
  private readonly storage: FileStorage;
  private readonly bytesMaximum: number;
  private readonly textDocumentsMaximum: number;

  private readonly batches: DocumentBatchQueue;

  constructor(private readonly options: KnowledgeDocumentServiceOptions) {
    this.batches = new DocumentBatchQueue(options);
    this.db = options.db;
    this.storage = options.storage;
    this.bytesMaximum = options.bytesMaximum;
    this.textDocumentsMaximum = options.textDocumentsMaximum;
  }

  /** Rejects unless the caller may add documents to the knowledge base: checked before a page is fetched for it. */
  async requireChange(context: CallContext, knowledgeBaseId: number): Promise<void> {
    await this.load(context, knowledgeBaseId, 'update');
  }

  // The row alone: no document call needs the knowledge base's counts.
  private async load(context: CallContext, id: number, action: KnowledgeBaseAction): Promise<KnowledgeBaseRow> {
    return loadKnowledgeBase(this.db, { identity: context.identity, id, action, find: findKnowledgeBaseRow });
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
      .store(record.id, input.stream, {
        bytesMaximum: this.bytesMaximum,
        extension: UPLOAD_EXTENSION,
        keptBytesMaximum: SMALL_TEXT_BYTES_MAXIMUM,
      })
      .catch((error: unknown) => uploadFailure(this.db, record.id, error));
    let contentType: string;
    try {
      // A small upload's bytes are in hand; a larger one is read back rather than held while it streams in.
      const bytes = stored.bytes ?? (await this.storage.readAll(record.id, stored.storedName));
      if (bytes === undefined) throw new Error('The uploaded file vanished before it could be checked.');
      // On the event loop: a text file is checked a slice at a time; archives and PDFs are only looked at here, read in the document worker.
      contentType = (await detectUploadedDocumentType({ fileName, bytes })).contentType;
    } catch (error) {
      await this.storage.remove(record.id, stored.storedName).catch(() => undefined);
      return await uploadFailure(this.db, record.id, asAppError(error));
    }
    const document = {
      fileName,
      contentType,
      metadata: input.metadata ?? {},
      sourceUrl: input.sourceUrl ?? null,
      sizeBytes: stored.sizeBytes,
    };
    const [queued] = await this.batches.queue(context, record, [document], {
      stagedNames: [stored.storedName],
      place: async ([documentId]) => await this.storage.rename(record.id, stored.storedName, String(documentId)),
    });
    return queued!;
  }

  /**
   * LAMB's JSON form: each text becomes a document of its own with its own ingestion job; its
   * content can be downloaded like an upload's. A small text (KB_JSON_STORED_TEXT_BYTES_MAX) is kept
   * in the store with its row, a larger one as a text file. Everything is checked before the first
   * document is written.
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
    const prepared = prepareTexts(documents, this.bytesMaximum);
    const record = await this.load(context, knowledgeBaseId, 'update');
    const checked: CheckedDocument[] = [];
    for (const { text, ...document } of prepared) {
      // Checked from the text in hand before anything is written: a refused text leaves nothing behind.
      const { contentType } = await detectUploadedDocumentType({ fileName: document.fileName, bytes: Buffer.from(text, 'utf8') }).catch(
        (error: unknown) => {
          throw asAppError(error);
        },
      );
      const sizeBytes = Buffer.byteLength(text, 'utf8');
      checked.push({ ...document, contentType, sizeBytes, ...(sizeBytes <= this.options.storedTextBytesMaximum && { storedText: text }) });
    }
    // A text kept in the store with its row has no file to write.
    const isFile = (index: number): boolean => checked[index]!.storedText === undefined;
    const queued = await this.batches.queue(context, record, checked, {
      stagedNames: [],
      place: (documentIds) =>
        this.writeTexts(
          record.id,
          prepared.filter((_, index) => isFile(index)),
          documentIds.filter((_, index) => isFile(index)),
        ),
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

  /** The original bytes as uploaded, streamed from blob storage (or the store, for a small JSON text), with the content type found for them. */
  async content(
    context: CallContext,
    knowledgeBaseId: number,
    documentId: number,
  ): Promise<{ stream: Readable; sizeBytes: number; contentType: string; fileName: string }> {
    const record = await this.load(context, knowledgeBaseId, 'view');
    const row = await this.document(record.id, documentId);
    const storedText = await findDocumentText(this.db, row.id);
    const stream =
      storedText === undefined ? await this.storage.open(record.id, String(row.id)) : Readable.from([Buffer.from(storedText, 'utf8')]);
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
