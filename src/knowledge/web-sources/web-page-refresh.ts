/**
 * Refreshing a document added from a web page: the page is read again under the same rules as when
 * it was added (outbound rules, robots.txt), and its text compared by SHA-256 with the text stored.
 * An unchanged page only has its last-checked time moved and says so; a changed one has its stored
 * text replaced and is re-indexed by a new ingestion job (its old passages answer until the job
 * replaces them); a page that can no longer be read keeps its passages and records why. A refresh
 * runs on demand (the route) or on the document's schedule (`every_seconds`, at least
 * WEB_REFRESH_INTERVAL_MIN_SECONDS), swept every WEB_REFRESH_SWEEP_MS by one process of the fleet.
 */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { CallContext } from '../../auth/call-context.js';
import { auditEntryOf } from '../../auth/call-context.js';
import { AppError } from '../../errors/app-error.js';
import type { FileStorage } from '../../files/file-storage.js';
import { readReadablePage } from '../../integrations/web-reading/readable-page.js';
import { checkRobotsRules } from '../../integrations/web-reading/robots-rules.js';
import type { OrganizationLimits } from '../../organizations/organization-controls.js';
import { requireStorageRoom } from '../../organizations/organization-quotas.js';
import { appendAuditEntry } from '../../store/audit-log-repository.js';
import { deleteDocumentText, findDocumentText } from '../../store/document-texts-repository.js';
import { insertIngestionJobs } from '../../store/ingestion-jobs-repository.js';
import { findDocument, type KnowledgeDocumentRow } from '../../store/knowledge-documents-repository.js';
import { findKnowledgeBaseRow, type KnowledgeBaseRow } from '../../store/knowledge-repository.js';
import type { Database } from '../../store/schema.js';
import { documentIsBeingIndexed, listDocumentsDueForRefresh, updateDocumentRefresh } from '../../store/web-crawls-repository.js';
import { asRefusal, type WebPageReading } from '../web-page-documents.js';
import { knowledgeBaseFor } from './web-crawl-service.js';
import { contentHashOf, webPageText } from './web-page-text.js';
import type { DocumentRefreshBody, DocumentRefreshView } from './web-source-schemas.js';

export interface WebPageRefreshOptions {
  db: Kysely<Database>;
  storage: FileStorage;
  reading: WebPageReading;
  /** KB_UPLOAD_MAX_BYTES: a page grown past it is a failed refresh. */
  bytesMaximum: number;
  /** WEB_REFRESH_INTERVAL_MIN_SECONDS. */
  intervalMinimumSeconds: number;
  limitsFor: (organizationId: number) => Promise<OrganizationLimits>;
}

/** A transcript added by a video's address is stored as captions (video-transcripts.ts), named .vtt or .srt. */
const TRANSCRIPT_FILE_NAME = /\.(?:vtt|srt)$/i;

/** Who a refresh is done for: a person on demand, or the schedule on the knowledge base owner's behalf. */
type Requester = { context: CallContext } | { scheduled: true };

function dueAfter(everySeconds: number | null, checkedAt: string): string | null {
  return everySeconds === null ? null : new Date(Date.parse(checkedAt) + everySeconds * 1_000).toISOString();
}

export class WebPageRefresher {
  constructor(private readonly options: WebPageRefreshOptions) {}

  /** The route's refresh: whoever may change the knowledge base refreshes one of its URL documents now. */
  async refresh(
    context: CallContext,
    knowledgeBaseId: number,
    documentId: number,
    body: DocumentRefreshBody,
  ): Promise<DocumentRefreshView> {
    const { db, intervalMinimumSeconds } = this.options;
    const everySeconds = body.every_seconds;
    if (typeof everySeconds === 'number' && everySeconds < intervalMinimumSeconds)
      throw new AppError('invalid_body', `every_seconds must be at least ${intervalMinimumSeconds} (WEB_REFRESH_INTERVAL_MIN_SECONDS).`, {
        param: 'every_seconds',
      });
    const record = await knowledgeBaseFor(db, context, knowledgeBaseId, 'update');
    const document = await findDocument(db, record.id, documentId);
    if (!document) throw new AppError('not_found', 'Document not found.');
    if (document.source_url === null)
      throw new AppError('invalid_parameter', 'Only a document added from a web address can be refreshed; upload the file again instead.');
    // A transcript's address (a video page, a caption file) is not a page whose readable text it stores.
    if (TRANSCRIPT_FILE_NAME.test(document.file_name))
      throw new AppError(
        'invalid_parameter',
        "A video's transcript cannot be refreshed; add the video's address again to take new captions.",
      );
    if (await documentIsBeingIndexed(db, document.id))
      throw new AppError('job_state_conflict', 'This document is still being indexed; refresh it once its job has ended.');
    const schedule = everySeconds === undefined ? document.refresh_every_seconds : everySeconds;
    return this.refreshDocument(record, { ...document, refresh_every_seconds: schedule }, { context });
  }

  /** One scheduled sweep: refreshes the URL documents whose schedule is due, at most `limit`; answers how many. */
  async refreshDue(limit: number, now: Date = new Date()): Promise<number> {
    const { db } = this.options;
    const due = await listDocumentsDueForRefresh(db, now.toISOString(), limit);
    let refreshed = 0;
    for (const { id, knowledge_base_id: knowledgeBaseId } of due) {
      const record = await findKnowledgeBaseRow(db, knowledgeBaseId);
      const document = await findDocument(db, knowledgeBaseId, id);
      if (!record || record.deleted_at !== null || !document) continue;
      if (await documentIsBeingIndexed(db, id)) {
        // Looked at again on the next sweep after its schedule, not on every sweep meanwhile.
        await updateDocumentRefresh(db, id, { refresh_due_at: dueAfter(document.refresh_every_seconds, now.toISOString()) });
        continue;
      }
      await this.refreshDocument(record, document, { scheduled: true });
      refreshed += 1;
    }
    return refreshed;
  }

  private async refreshDocument(
    record: KnowledgeBaseRow,
    document: KnowledgeDocumentRow,
    requester: Requester,
  ): Promise<DocumentRefreshView> {
    const { db, reading } = this.options;
    const url = new URL(document.source_url!);
    const checkedAt = new Date().toISOString();
    const schedule = {
      refresh_every_seconds: document.refresh_every_seconds,
      refresh_due_at: dueAfter(document.refresh_every_seconds, checkedAt),
    };
    const answer = (outcome: DocumentRefreshView['outcome'], reason: string | null, jobId: number | null): DocumentRefreshView => ({
      document_id: document.id,
      outcome,
      reason,
      job_id: jobId,
      checked_at: checkedAt,
      every_seconds: document.refresh_every_seconds,
    });
    // The old text and passages stay; the document says why this check failed.
    const failed = async (error: unknown): Promise<DocumentRefreshView> => {
      const reason = asRefusal(error).message;
      await updateDocumentRefresh(db, document.id, {
        ...schedule,
        last_checked_at: checkedAt,
        refresh_outcome: 'failed',
        refresh_error: reason,
      });
      return answer('failed', reason, null);
    };
    let text: string;
    try {
      const signal = new AbortController().signal;
      await checkRobotsRules(url, { fetch: reading.fetch, timeoutMilliseconds: reading.timeoutMilliseconds, signal });
      text = webPageText(await readReadablePage(url.toString(), { ...reading, signal }));
      if (Buffer.byteLength(text) > this.options.bytesMaximum)
        throw new AppError('file_too_large', `${url.host} now has more text than KB_UPLOAD_MAX_BYTES allows; the old passages are kept.`);
    } catch (error) {
      return failed(error);
    }
    const hash = contentHashOf(text);
    if (hash === (document.content_hash ?? (await this.storedHash(record.id, document.id)))) {
      await updateDocumentRefresh(db, document.id, {
        ...schedule,
        content_hash: hash,
        last_checked_at: checkedAt,
        refresh_outcome: 'unchanged',
        refresh_error: null,
      });
      return answer('unchanged', null, null);
    }
    try {
      const jobId = await this.replaceText(record, document, { text, hash, checkedAt, schedule, requester });
      return answer('changed', null, jobId);
    } catch (error) {
      return failed(error);
    }
  }

  /** The hash of the text stored for a document that has none yet (added before refreshes existed). */
  private async storedHash(knowledgeBaseId: number, documentId: number): Promise<string | undefined> {
    const storedText = await findDocumentText(this.options.db, documentId);
    const bytes =
      storedText === undefined ? await this.options.storage.readAll(knowledgeBaseId, String(documentId)) : Buffer.from(storedText, 'utf8');
    return bytes === undefined ? undefined : contentHashOf(bytes);
  }

  /** Stores the page's new text over the old and queues the document's re-indexing; answers the job's id. */
  private async replaceText(
    record: KnowledgeBaseRow,
    document: KnowledgeDocumentRow,
    change: {
      text: string;
      hash: string;
      checkedAt: string;
      schedule: { refresh_every_seconds: number | null; refresh_due_at: string | null };
      requester: Requester;
    },
  ): Promise<number> {
    const { db, storage } = this.options;
    const bytes = Buffer.from(change.text, 'utf8');
    await requireStorageRoom(db, {
      organizationId: record.organization_id,
      addedBytes: Math.max(0, bytes.length - document.size_bytes),
      limits: await this.options.limitsFor(record.organization_id),
    });
    const stored = await storage.store(record.id, Readable.from([bytes]), { bytesMaximum: this.options.bytesMaximum, extension: 'upload' });
    // The blob store replaces the old text in one move, so the runner never reads half of either.
    await storage.rename(record.id, stored.storedName, String(document.id));
    const requestedBy = 'context' in change.requester ? change.requester.context.identity.userId : record.owner_id;
    return db.transaction().execute(async (transaction) => {
      // The new text is the file: a text the document was added with and kept in the store is stale now.
      await deleteDocumentText(transaction, document.id);
      await updateDocumentRefresh(transaction, document.id, {
        ...change.schedule,
        content_hash: change.hash,
        last_checked_at: change.checkedAt,
        refresh_outcome: 'changed',
        refresh_error: null,
        size_bytes: bytes.length,
        status: 'pending',
        error: null,
      });
      const [jobId] = await insertIngestionJobs(transaction, { knowledgeBaseId: record.id, documentIds: [document.id], requestedBy });
      if ('context' in change.requester)
        await appendAuditEntry(
          transaction,
          auditEntryOf(
            change.requester.context,
            { type: 'knowledge_base', id: record.id, organizationId: record.organization_id },
            'knowledge_base.document_refresh',
            { document_id: document.id, size_bytes: bytes.length },
          ),
        );
      return jobId!;
    });
  }
}
