/**
 * Crawls of same-site links started from a page added to a knowledge base (web-site-crawl.ts): the
 * request is checked (who may change the knowledge base, the URL, the bounds against their
 * settings), recorded in `web_crawls` and answered at once; the crawl then runs in this process,
 * each page read becoming its own document (with its `source_url`, ingested by its own job) and its
 * progress written to the store as it goes, so whoever may view the knowledge base can follow it.
 * A page that fails is listed with its reason and the others go on. Stopping the server ends the
 * crawls it runs, each marked failed with the pages it had read kept; a process that dies instead
 * leaves its crawls to the leftover sweep, through the lease each crawl renews (abandoned-web-crawls.ts).
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../../auth/call-context.js';
import type { KnowledgeBaseAction } from '../../auth/permissions.js';
import { AppError } from '../../errors/app-error.js';
import type { ReadablePage } from '../../integrations/web-reading/readable-page.js';
import { loadRobotsRules } from '../../integrations/web-reading/robots-rules.js';
import { findKnowledgeBaseRow, type KnowledgeBaseRow } from '../../store/knowledge-repository.js';
import type { Database } from '../../store/schema.js';
import {
  findWebCrawl,
  insertWebCrawl,
  renewWebCrawlLease,
  saveWebCrawlProgress,
  updateDocumentRefresh,
  type WebCrawlProgress,
  type WebCrawlRow,
} from '../../store/web-crawls-repository.js';
import { loadKnowledgeBase } from '../knowledge-base-access.js';
import type { KnowledgeDocumentService } from '../knowledge-document-service.js';
import { asRefusal, parsedPageUrl, type WebPageReading } from '../web-page-documents.js';
import { failAbandonedWebCrawls } from './abandoned-web-crawls.js';
import { crawlSite } from './web-site-crawl.js';
import { contentHashOf, webPageFileName, webPageText } from './web-page-text.js';
import type { WebCrawlBody, WebCrawlView } from './web-source-schemas.js';

/** Pages a crawl reads when the request names no bound, unless WEB_CRAWL_PAGES_MAX is lower. */
const DEFAULT_CRAWL_PAGES = 20;
/** Failures past these are counted but not listed, so a crawl's row stays small. */
const LISTED_FAILURES_MAXIMUM = 100;

export interface WebCrawlServiceOptions {
  db: Kysely<Database>;
  documents: KnowledgeDocumentService;
  reading: WebPageReading;
  /** WEB_CRAWL_DEPTH_MAX, WEB_CRAWL_PAGES_MAX, WEB_CRAWL_PAGES_IN_FLIGHT. */
  depthMaximum: number;
  pagesMaximum: number;
  pagesInFlight: number;
  /** This process, as it signs the crawls it runs. */
  runner: string;
  /** WEB_CRAWL_LEASE_MS: how long a crawl stays this process's without renewal. */
  leaseMilliseconds: number;
}

/** The knowledge base's row, once the caller may do `action` on it (the one permission module decides). */
export async function knowledgeBaseFor(
  db: Kysely<Database>,
  context: CallContext,
  id: number,
  action: KnowledgeBaseAction,
): Promise<KnowledgeBaseRow> {
  return loadKnowledgeBase(db, { identity: context.identity, id, action, find: findKnowledgeBaseRow });
}

/** A bound the request may lower but not raise past its setting. */
function bounded(bound: { value: number | undefined; fallback: number; maximum: number; name: string; variable: string }): number {
  const chosen = bound.value ?? bound.fallback;
  if (chosen > bound.maximum)
    throw new AppError('invalid_body', `${bound.name} may be at most ${bound.maximum} (${bound.variable}).`, { param: bound.name });
  return chosen;
}

function crawlView(row: WebCrawlRow): WebCrawlView {
  return {
    id: row.id,
    knowledge_base_id: row.knowledge_base_id,
    url: row.start_url,
    depth: row.depth,
    pages_maximum: row.pages_maximum,
    status: row.status,
    pages_read: row.pages_read,
    pages_failed: row.pages_failed,
    pages_found: row.pages_found,
    failures: JSON.parse(row.failures) as WebCrawlView['failures'],
    documents: JSON.parse(row.documents) as WebCrawlView['documents'],
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}

/** A failure as the crawl lists it: the reader's own words, never a stack or what the site sent. */
function reasonOf(error: unknown): string {
  return asRefusal(error).message;
}

export class WebCrawlService {
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: WebCrawlServiceOptions) {}

  async start(context: CallContext, knowledgeBaseId: number, body: WebCrawlBody): Promise<WebCrawlView> {
    const { db, depthMaximum, pagesMaximum } = this.options;
    const url = parsedPageUrl(body.url.trim());
    const depth = bounded({ value: body.depth, fallback: 1, maximum: depthMaximum, name: 'depth', variable: 'WEB_CRAWL_DEPTH_MAX' });
    const pages = bounded({
      value: body.pages,
      fallback: Math.min(DEFAULT_CRAWL_PAGES, pagesMaximum),
      maximum: pagesMaximum,
      name: 'pages',
      variable: 'WEB_CRAWL_PAGES_MAX',
    });
    const record = await knowledgeBaseFor(db, context, knowledgeBaseId, 'update');
    const row = await insertWebCrawl(db, {
      knowledgeBaseId: record.id,
      requestedBy: context.identity.userId,
      startUrl: url.toString(),
      depth,
      pagesMaximum: pages,
      runner: this.options.runner,
      leaseExpiresAt: this.leaseUntil(),
    });
    const run = this.runUnderLease(context, row).catch(() => undefined);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    return crawlView(row);
  }

  async get(context: CallContext, knowledgeBaseId: number, crawlId: number): Promise<WebCrawlView> {
    const record = await knowledgeBaseFor(this.options.db, context, knowledgeBaseId, 'view');
    const row = await findWebCrawl(this.options.db, record.id, crawlId);
    if (!row) throw new AppError('not_found', 'Crawl not found.');
    return crawlView(row);
  }

  /** Fails the running crawls whose process is gone (the leftover sweep calls this); returns how many. */
  async failAbandoned(): Promise<number> {
    return failAbandonedWebCrawls(this.options.db);
  }

  /** Ends every crawl this process runs and waits for them to record where they stopped. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.running]);
  }

  private leaseUntil(): string {
    return new Date(Date.now() + this.options.leaseMilliseconds).toISOString();
  }

  /** Runs the crawl, renewing its lease every third of WEB_CRAWL_LEASE_MS until it ends. */
  private async runUnderLease(context: CallContext, row: WebCrawlRow): Promise<void> {
    const { db, runner, leaseMilliseconds } = this.options;
    const renew = (): void => void renewWebCrawlLease(db, row.id, runner, this.leaseUntil()).catch(() => undefined);
    const timer = setInterval(renew, Math.max(1, Math.floor(leaseMilliseconds / 3)));
    try {
      await this.run(context, row);
    } finally {
      clearInterval(timer);
    }
  }

  private async run(context: CallContext, row: WebCrawlRow): Promise<void> {
    const { db, reading } = this.options;
    const progress: { -readonly [Key in keyof WebCrawlProgress]: WebCrawlProgress[Key] } & {
      failures: Array<{ url: string; reason: string }>;
      documents: Array<{ document_id: number; job_id: number; url: string }>;
    } = { pagesRead: 0, pagesFailed: 0, pagesFound: 1, failures: [], documents: [] };
    // Writes go one after another, so the row never goes back to an older count.
    let saving = Promise.resolve();
    const save = (): Promise<void> => {
      const snapshot = { ...progress, failures: [...progress.failures], documents: [...progress.documents] };
      saving = saving.then(() => saveWebCrawlProgress(db, row.id, snapshot)).catch(() => undefined);
      return saving;
    };
    const fail = async (url: string, error: unknown): Promise<void> => {
      progress.pagesFailed += 1;
      if (progress.failures.length < LISTED_FAILURES_MAXIMUM) progress.failures.push({ url, reason: reasonOf(error) });
      await save();
    };
    const start = new URL(row.start_url);
    const signal = this.stopping.signal;
    try {
      const robots = await loadRobotsRules(start, { fetch: reading.fetch, timeoutMilliseconds: reading.timeoutMilliseconds, signal });
      await crawlSite({
        start,
        reading,
        bounds: { depth: row.depth, pagesMaximum: row.pages_maximum, pagesInFlight: this.options.pagesInFlight },
        robots,
        signal,
        onPage: async (page) => {
          progress.documents.push(await this.addPage(context, row.knowledge_base_id, page));
          progress.pagesRead += 1;
          await save();
        },
        onFailure: fail,
        onFound: (count) => {
          progress.pagesFound = Math.max(progress.pagesFound, count);
        },
      });
    } catch (error) {
      await fail(row.start_url, error);
    }
    if (signal.aborted && progress.failures.length < LISTED_FAILURES_MAXIMUM)
      progress.failures.push({ url: row.start_url, reason: 'The server stopped before the crawl ended; the pages read so far are kept.' });
    progress.finished = progress.pagesRead === 0 || signal.aborted ? 'failed' : 'completed';
    await save();
  }

  /** Stores a page read by the crawl as a document of its own, remembering its address and the hash of its text. */
  private async addPage(
    context: CallContext,
    knowledgeBaseId: number,
    page: ReadablePage,
  ): Promise<{ document_id: number; job_id: number; url: string }> {
    const text = webPageText(page);
    const { documents } = await this.options.documents.addTexts(context, knowledgeBaseId, [
      { text, metadata: { filename: webPageFileName(page.title, new URL(page.url)), title: page.title, source_url: page.url } },
    ]);
    const queued = documents[0]!;
    await updateDocumentRefresh(this.options.db, queued.document_id, {
      content_hash: contentHashOf(text),
      last_checked_at: new Date().toISOString(),
    });
    return { ...queued, url: page.url };
  }
}
