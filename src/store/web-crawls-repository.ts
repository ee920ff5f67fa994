/**
 * Crawls of same-site links (`web_crawls`, migration 0093) and the refresh columns of URL
 * documents. A crawl is run by the process that started it, which alone writes its progress, so
 * its lists of failures and documents are written whole with each step.
 */
import type { Kysely, Selectable } from 'kysely';
import { nowTimestamp, type Database, type KnowledgeDocumentsTable, type WebCrawlsTable } from './schema.js';

export type WebCrawlRow = Selectable<WebCrawlsTable>;

export interface NewWebCrawl {
  knowledgeBaseId: number;
  requestedBy: number;
  startUrl: string;
  depth: number;
  pagesMaximum: number;
  runner: string;
  leaseExpiresAt: string;
}

export async function insertWebCrawl(db: Kysely<Database>, crawl: NewWebCrawl): Promise<WebCrawlRow> {
  const timestamp = nowTimestamp();
  return db
    .insertInto('web_crawls')
    .values({
      knowledge_base_id: crawl.knowledgeBaseId,
      requested_by: crawl.requestedBy,
      start_url: crawl.startUrl,
      depth: crawl.depth,
      pages_maximum: crawl.pagesMaximum,
      status: 'running',
      pages_read: 0,
      pages_failed: 0,
      pages_found: 1,
      failures: '[]',
      documents: '[]',
      runner: crawl.runner,
      lease_expires_at: crawl.leaseExpiresAt,
      created_at: timestamp,
      updated_at: timestamp,
      finished_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findWebCrawl(db: Kysely<Database>, knowledgeBaseId: number, crawlId: number): Promise<WebCrawlRow | undefined> {
  return db
    .selectFrom('web_crawls')
    .selectAll()
    .where('id', '=', crawlId)
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .executeTakeFirst();
}

export interface WebCrawlProgress {
  pagesRead: number;
  pagesFailed: number;
  pagesFound: number;
  failures: ReadonlyArray<{ url: string; reason: string }>;
  documents: ReadonlyArray<{ document_id: number; job_id: number; url: string }>;
  /** Set when the crawl ends. */
  finished?: 'completed' | 'failed';
}

export async function saveWebCrawlProgress(db: Kysely<Database>, crawlId: number, progress: WebCrawlProgress): Promise<void> {
  const timestamp = nowTimestamp();
  await db
    .updateTable('web_crawls')
    .set({
      pages_read: progress.pagesRead,
      pages_failed: progress.pagesFailed,
      pages_found: progress.pagesFound,
      failures: JSON.stringify(progress.failures),
      documents: JSON.stringify(progress.documents),
      updated_at: timestamp,
      ...(progress.finished !== undefined && { status: progress.finished, finished_at: timestamp, lease_expires_at: null }),
    })
    .where('id', '=', crawlId)
    .where('status', '=', 'running')
    .execute();
}

/** Keeps a running crawl its runner's until `leaseExpiresAt`. */
export async function renewWebCrawlLease(db: Kysely<Database>, crawlId: number, runner: string, leaseExpiresAt: string): Promise<void> {
  await db
    .updateTable('web_crawls')
    .set({ lease_expires_at: leaseExpiresAt })
    .where('id', '=', crawlId)
    .where('runner', '=', runner)
    .where('status', '=', 'running')
    .execute();
}

export type RunningWebCrawl = Pick<WebCrawlRow, 'id' | 'runner' | 'lease_expires_at' | 'start_url' | 'pages_read' | 'failures'>;

/** Every crawl stored as running, whoever runs it. */
export async function listRunningWebCrawls(db: Kysely<Database>): Promise<RunningWebCrawl[]> {
  return db
    .selectFrom('web_crawls')
    .select(['id', 'runner', 'lease_expires_at', 'start_url', 'pages_read', 'failures'])
    .where('status', '=', 'running')
    .execute();
}

/**
 * Marks failed a crawl whose runner is gone, with `failures` (its list with the reason added), only
 * if it is still running under the runner and lease the sweep saw; false when it moved meanwhile.
 */
export async function failAbandonedWebCrawl(db: Kysely<Database>, crawl: RunningWebCrawl, failures: string): Promise<boolean> {
  const timestamp = nowTimestamp();
  const result = await db
    .updateTable('web_crawls')
    .set({ status: 'failed', failures, finished_at: timestamp, updated_at: timestamp, lease_expires_at: null })
    .where('id', '=', crawl.id)
    .where('status', '=', 'running')
    .where((eb) => (crawl.runner === null ? eb('runner', 'is', null) : eb('runner', '=', crawl.runner)))
    .where((eb) =>
      crawl.lease_expires_at === null ? eb('lease_expires_at', 'is', null) : eb('lease_expires_at', '=', crawl.lease_expires_at),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What a refresh writes on a URL document (only the columns given). */
export type DocumentRefreshColumns = Partial<
  Pick<
    Selectable<KnowledgeDocumentsTable>,
    | 'content_hash'
    | 'last_checked_at'
    | 'refresh_outcome'
    | 'refresh_error'
    | 'refresh_every_seconds'
    | 'refresh_due_at'
    | 'size_bytes'
    | 'status'
    | 'error'
  >
>;

export async function updateDocumentRefresh(db: Kysely<Database>, documentId: number, columns: DocumentRefreshColumns): Promise<void> {
  await db
    .updateTable('kb_documents')
    .set({ ...columns, updated_at: nowTimestamp() })
    .where('id', '=', documentId)
    .execute();
}

/** URL documents whose scheduled refresh is due at `now`, in live knowledge bases, soonest first. */
export async function listDocumentsDueForRefresh(
  db: Kysely<Database>,
  now: string,
  limit: number,
): Promise<Array<{ id: number; knowledge_base_id: number }>> {
  return db
    .selectFrom('kb_documents')
    .innerJoin('knowledge_bases', 'knowledge_bases.id', 'kb_documents.knowledge_base_id')
    .select(['kb_documents.id', 'kb_documents.knowledge_base_id'])
    .where('kb_documents.refresh_due_at', '<=', now)
    .where('kb_documents.source_url', 'is not', null)
    .where('knowledge_bases.deleted_at', 'is', null)
    .orderBy('kb_documents.refresh_due_at')
    .limit(limit)
    .execute();
}

/** Whether the document's latest ingestion job is still waiting or running. */
export async function documentIsBeingIndexed(db: Kysely<Database>, documentId: number): Promise<boolean> {
  const row = await db
    .selectFrom('ingestion_jobs')
    .select('id')
    .where('document_id', '=', documentId)
    .where('status', 'in', ['pending', 'processing'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
