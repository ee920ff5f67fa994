/**
 * Live job progress: the changes of one knowledge base's ingestion jobs, pushed to the clients
 * that follow them. The store is the source, so a job run by any process reaches a client
 * connected to any other: one watch per knowledge base in this process reads the jobs changed
 * since its last read every JOB_EVENTS_POLL_MS, and hands each change to every subscriber of that
 * knowledge base (so a hundred open pages cost one read per poll, not a hundred). A watch re-reads
 * a short window before what it last saw, because processes write `updated_at` from their own
 * clocks; what it already sent is remembered, so a re-read change is not sent twice.
 *
 * A read sees where each job stands, not every step between two reads: a job queued and claimed
 * (or even finished) within one poll interval would never show `queued`, and a client waiting for
 * its start would wait forever. So a job whose start fell between two reads gets its `queued`
 * event first; a short `running` may still be passed over, its end never is.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { AppError } from '../errors/app-error.js';
import { listIngestionJobChanges, type IngestionJobChange } from '../store/ingestion-job-changes-repository.js';
import { findKnowledgeBaseRow } from '../store/knowledge-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { loadKnowledgeBase } from './knowledge-base-access.js';
import type { JobEvent } from './knowledge-job-event-schemas.js';

/** How far before the newest change seen each read looks again: room for clocks of processes that differ a little. */
const CLOCK_SKEW_WINDOW_MILLISECONDS = 2_000;
/** Rows per page of one read, and pages per read: a burst larger than this is read over the next polls. */
const PAGE_ROWS = 500;
const PAGES_PER_READ = 20;

export interface KnowledgeJobEventOptions {
  db: Kysely<Database>;
  pollMilliseconds: number;
  streamsPerUserMaximum: number;
}

export type JobEventListener = (event: JobEvent) => void;

/** An open stream's hold on its watch and on its user's share of streams; close it when the client goes. */
export interface JobEventSubscription {
  close(): void;
}

function percentOf(change: IngestionJobChange): number {
  if (change.status === 'completed') return 100;
  if (change.progress_total <= 0) return 0;
  return Math.min(100, Math.round((change.progress_current / change.progress_total) * 100));
}

const EVENT_OF_STATUS = {
  pending: 'queued',
  processing: 'running',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
} as const;

function jobEventOf(change: IngestionJobChange): JobEvent {
  return {
    event: EVENT_OF_STATUS[change.status],
    job_id: change.id,
    document_id: change.document_id,
    file_name: change.file_name,
    percent: percentOf(change),
    stage: change.message,
    chunk_count: change.status === 'completed' ? change.chunk_count : null,
    reason: change.status === 'failed' ? change.error : null,
    updated_at: change.updated_at,
  };
}

function queuedEventOf(change: IngestionJobChange): JobEvent {
  return { ...jobEventOf(change), event: 'queued', percent: 0, stage: null, chunk_count: null, reason: null };
}

const ENDED_STATUSES: ReadonlySet<IngestionJobChange['status']> = new Set(['completed', 'failed', 'cancelled']);

function signatureOf(change: IngestionJobChange): string {
  return JSON.stringify([change.status, change.progress_current, change.progress_total, change.message, change.error, change.updated_at]);
}

interface SentChange {
  signature: string;
  status: IngestionJobChange['status'];
  updatedAt: string;
}

/** One knowledge base's jobs, read from the store while anyone in this process follows them. */
class KnowledgeBaseWatch {
  readonly listeners = new Set<JobEventListener>();
  /** Jobs created from here on started while this watch followed them: their `queued` is owed to the clients. */
  private readonly startedAt = nowTimestamp();
  private newestSeen = this.startedAt;
  private readonly sent = new Map<number, SentChange>();
  private seeded = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Resolves once the first read has learnt what is there, so that every change after the stream opened is sent. */
  readonly ready: Promise<void>;

  constructor(
    private readonly knowledgeBaseId: number,
    private readonly options: KnowledgeJobEventOptions,
  ) {
    this.ready = this.readAndSchedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.readAndSchedule(), this.options.pollMilliseconds);
    this.timer.unref();
  }

  private async readAndSchedule(): Promise<void> {
    try {
      await this.read();
    } catch {
      // The store did not answer this time (restarting, failing over): the next poll reads the same window again.
    }
    this.schedule();
  }

  /** Reads the changes since shortly before the newest seen; the first read only learns what is there, so a stream sends changes made after it opened. */
  private async read(): Promise<void> {
    const since = new Date(Date.parse(this.newestSeen) - CLOCK_SKEW_WINDOW_MILLISECONDS).toISOString();
    let after: { updatedAt: string; id: number } | undefined;
    for (let page = 0; page < PAGES_PER_READ; page += 1) {
      const changes = await listIngestionJobChanges(this.options.db, {
        knowledgeBaseId: this.knowledgeBaseId,
        since,
        after,
        limit: PAGE_ROWS,
      });
      for (const change of changes) this.take(change);
      const last = changes.at(-1);
      if (last === undefined || changes.length < PAGE_ROWS) break;
      after = { updatedAt: last.updated_at, id: last.id };
    }
    // Forgets what can no longer be read again, so the memory follows the window, not the history.
    for (const [jobId, entry] of this.sent) if (entry.updatedAt < since) this.sent.delete(jobId);
    this.seeded = true;
  }

  private take(change: IngestionJobChange): void {
    const signature = signatureOf(change);
    const previous = this.sent.get(change.id);
    if (previous?.signature === signature) return;
    this.sent.set(change.id, { signature, status: change.status, updatedAt: change.updated_at });
    if (change.updated_at > this.newestSeen) this.newestSeen = change.updated_at;
    if (!this.seeded) return;
    if (this.startWasPassedOver(change, previous)) this.send(queuedEventOf(change));
    this.send(jobEventOf(change));
  }

  /** True when the job was queued (uploaded, or retried after it ended) since the last read but is already past `pending`. */
  private startWasPassedOver(change: IngestionJobChange, previous: SentChange | undefined): boolean {
    if (change.status === 'pending') return false;
    if (previous === undefined) return change.created_at >= this.startedAt;
    // An ended job changes again only when retried: it was queued once more in between.
    return ENDED_STATUSES.has(previous.status);
  }

  private send(event: JobEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

export class KnowledgeJobEventService {
  private readonly watches = new Map<number, KnowledgeBaseWatch>();
  private readonly streamsByUser = new Map<number, number>();

  constructor(private readonly options: KnowledgeJobEventOptions) {}

  /**
   * Checks that the caller may read the knowledge base's jobs (404 as for the jobs list) and has a
   * stream to spare (429), then hands `listener` every job change from now on until closed.
   */
  async subscribe(context: CallContext, knowledgeBaseId: number, listener: JobEventListener): Promise<JobEventSubscription> {
    const record = await loadKnowledgeBase(this.options.db, {
      identity: context.identity,
      id: knowledgeBaseId,
      action: 'view',
      find: findKnowledgeBaseRow,
    });
    const userId = context.identity.userId;
    const open = this.streamsByUser.get(userId) ?? 0;
    if (open >= this.options.streamsPerUserMaximum) {
      throw new AppError('job_event_streams_limit', undefined, { details: { streams_maximum: this.options.streamsPerUserMaximum } });
    }
    this.streamsByUser.set(userId, open + 1);
    const watch = this.watchOf(record.id);
    watch.listeners.add(listener);
    await watch.ready;
    let closed = false;
    return {
      close: () => {
        if (closed) return;
        closed = true;
        this.release(userId);
        watch.listeners.delete(listener);
        if (watch.listeners.size === 0) {
          watch.stop();
          this.watches.delete(record.id);
        }
      },
    };
  }

  private release(userId: number): void {
    const left = (this.streamsByUser.get(userId) ?? 1) - 1;
    if (left <= 0) this.streamsByUser.delete(userId);
    else this.streamsByUser.set(userId, left);
  }

  private watchOf(knowledgeBaseId: number): KnowledgeBaseWatch {
    let watch = this.watches.get(knowledgeBaseId);
    if (!watch) {
      watch = new KnowledgeBaseWatch(knowledgeBaseId, this.options);
      this.watches.set(knowledgeBaseId, watch);
    }
    return watch;
  }
}
