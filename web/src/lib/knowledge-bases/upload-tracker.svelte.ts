/**
 * What the knowledge base page knows about this visit's uploads and every ingestion job: each
 * file's upload share while its bytes go out, then its job's state, kept current from the live
 * job events (or, when the stream is unavailable, from the polled job list). Jobs are keyed by id,
 * so an event that arrives before its upload's answer is kept and shown once the answer names it.
 */
import { SvelteMap } from 'svelte/reactivity';
import type { IngestionJob, KnowledgeDocument } from '$lib/api/knowledge-documents';
import type { JobEvent } from '$lib/api/job-events';

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface JobState {
  status: JobStatus;
  percent: number;
  stage: string | null;
  chunkCount: number | null;
  reason: string | null;
  /** When the server last changed it: an older report never overwrites a newer one. */
  updatedAt: string;
}

export interface UploadRow {
  key: number;
  fileName: string;
  /** The share of its bytes sent, 0 to 1. */
  sent: number;
  /** Why the server refused the upload itself (no job was made). */
  refusal: string | undefined;
  jobId: number | undefined;
}

const STATUS_OF_EVENT: Record<JobEvent['event'], JobStatus> = {
  queued: 'pending',
  running: 'processing',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function isFinished(status: JobStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

export class UploadTracker {
  uploads: UploadRow[] = $state([]);
  readonly jobs = new SvelteMap<number, JobState>();
  private nextKey = 1;

  /** Adds a row for a file about to be sent; returns its key. */
  add(fileName: string): number {
    const key = this.nextKey++;
    this.uploads.push({ key, fileName, sent: 0, refusal: undefined, jobId: undefined });
    return key;
  }

  private row(key: number): UploadRow | undefined {
    return this.uploads.find((upload) => upload.key === key);
  }

  sent(key: number, fraction: number): void {
    const row = this.row(key);
    if (row) row.sent = Math.max(row.sent, Math.min(1, fraction));
  }

  queued(key: number, jobId: number): void {
    const row = this.row(key);
    if (!row) return;
    row.sent = 1;
    row.jobId = jobId;
    if (!this.jobs.has(jobId))
      this.jobs.set(jobId, { status: 'pending', percent: 0, stage: null, chunkCount: null, reason: null, updatedAt: '' });
  }

  refused(key: number, reason: string): void {
    const row = this.row(key);
    if (row) row.refusal = reason;
  }

  private put(jobId: number, state: JobState): void {
    const known = this.jobs.get(jobId);
    if (known && known.updatedAt > state.updatedAt) return;
    this.jobs.set(jobId, state);
  }

  applyEvent(event: JobEvent): void {
    const status = STATUS_OF_EVENT[event.event];
    this.put(event.job_id, {
      status,
      percent: status === 'completed' ? 100 : event.percent,
      stage: event.stage,
      chunkCount: event.chunk_count,
      reason: event.reason,
      updatedAt: event.updated_at,
    });
  }

  applyJob(job: IngestionJob): void {
    this.put(job.id, {
      status: job.status,
      percent: job.progress.percentage,
      stage: job.progress.message,
      chunkCount: this.jobs.get(job.id)?.chunkCount ?? null,
      reason: job.error,
      updatedAt: job.updated_at,
    });
  }

  /** A polled job carries no chunk count: its document, listed after it finished, does. */
  applyDocuments(documents: readonly KnowledgeDocument[]): void {
    for (const document of documents) {
      const job = document.job_id === null ? undefined : this.jobs.get(document.job_id);
      if (job && job.status === 'completed' && job.chunkCount === null)
        this.jobs.set(document.job_id!, { ...job, chunkCount: document.chunk_count });
    }
  }

  /** A job the user just retried or cancelled, as the server answered. */
  replaceJob(job: IngestionJob): void {
    this.jobs.delete(job.id);
    this.applyJob(job);
  }

  /** Whether a job of this visit's uploads is still waiting or running. */
  busy(): boolean {
    return this.uploads.some((upload) => {
      if (upload.refusal !== undefined) return false;
      if (upload.jobId === undefined) return true;
      const job = this.jobs.get(upload.jobId);
      return job === undefined || !isFinished(job.status);
    });
  }
}
