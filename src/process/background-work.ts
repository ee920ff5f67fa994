/**
 * The work a Merino process runs beside its requests, started and stopped in one place, so that
 * the server (server-start.ts) and the tests' in-process server start and stop the same things.
 */
import type { Logger } from 'pino';
import type { Services } from '../services.js';

export interface BackgroundWorkOptions {
  /** Whether this process answers requests (`merino serve`); a worker only ingests. */
  serving: boolean;
  /** Whether this process runs the ingestion runner (a worker always does; a server unless INGESTION_IN_WEB is false). */
  ingesting: boolean;
}

export function startBackgroundWork(services: Services, logger: Logger, options: BackgroundWorkOptions): void {
  if (options.ingesting) services.ingestionRunner.start(logger);
  if (!options.serving) return;
  services.chatRetentionPurger.start(logger);
  services.webPageRefreshSchedule.start(logger);
  services.chats.runs.startSweeps(logger);
  services.testRuns.leases.startSweeps(logger);
}

/**
 * Stops all of it (what was never started stops at once): the job in hand finishes (or, past a
 * shutdown deadline, is left to expire and be resumed by the next runner), and runs that ended in
 * the last RUN_RECORD_WINDOW_MS have their usage logs and traces written before the store closes.
 */
export async function stopBackgroundWork(services: Services): Promise<void> {
  await services.ingestionRunner.stop();
  await services.chatRetentionPurger.stop();
  await services.webCrawls.stop();
  await services.webPageRefreshSchedule.stop();
  await services.chats.runs.stopSweeps();
  await services.testRuns.leases.stopSweeps();
  await services.runRecords.close();
  await services.blobs.close();
}
