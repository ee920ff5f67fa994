/**
 * Keeps an upload tracker current for one knowledge base: the live job event stream while it
 * holds, and the job list, read when the stream (re)opens (to catch what happened before) and
 * every few seconds when the stream is unavailable. `onSettled` is called when a job finishes, so
 * the page can reload its documents.
 */
import { followJobEvents } from '$lib/api/job-events';
import { listJobs } from '$lib/api/knowledge-documents';
import { isFinished, type UploadTracker } from './upload-tracker.svelte';

/** How often the job list is read when the live stream is unavailable. */
const POLL_MILLISECONDS = 2_000;

export interface FollowOptions {
  knowledgeBaseId: number;
  tracker: UploadTracker;
  onSettled: () => void;
  /** The stream could not be held: the page now polls. */
  onPolling: () => void;
}

/** Starts following; the returned function stops. */
export function followJobs(options: FollowOptions): () => void {
  const { knowledgeBaseId, tracker, onSettled } = options;
  let poller: ReturnType<typeof setInterval> | undefined;
  let stopped = false;

  async function readJobs(): Promise<void> {
    try {
      const jobs = await listJobs(knowledgeBaseId);
      if (stopped) return;
      const settledBefore = [...tracker.jobs.values()].filter((job) => isFinished(job.status)).length;
      for (const job of jobs) if (tracker.jobs.has(job.id)) tracker.applyJob(job);
      const settledAfter = [...tracker.jobs.values()].filter((job) => isFinished(job.status)).length;
      if (settledAfter !== settledBefore) onSettled();
    } catch {
      // The next read tries again.
    }
  }

  const close = followJobEvents(knowledgeBaseId, {
    onOpen: () => void readJobs(),
    onEvent: (event) => {
      tracker.applyEvent(event);
      if (event.event === 'completed' || event.event === 'failed' || event.event === 'cancelled') onSettled();
    },
    onUnavailable: () => {
      if (poller !== undefined || stopped) return;
      options.onPolling();
      poller = setInterval(() => void readJobs(), POLL_MILLISECONDS);
    },
  });

  return () => {
    stopped = true;
    close();
    if (poller !== undefined) clearInterval(poller);
  };
}
