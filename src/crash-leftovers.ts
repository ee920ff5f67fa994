/**
 * What a starting server removes after a process that was killed mid-upload (`kill -9`, a lost
 * machine): temporary `.upload-*.part` files, staged knowledge-base uploads, documents that never
 * got their ingestion job, and stored files no row names. Several processes may share one store
 * and one data folder, and another may be uploading right now, so only leftovers older than
 * UPLOAD_LEFTOVER_GRACE_MS are removed: a live upload keeps writing its file, and the steps
 * between writing bytes and their row take milliseconds, never that long. Processes starting
 * together on one PostgreSQL take turns under a fleet-wide lock: one sweeps, the others skip, as
 * they share the storage it sweeps. main.ts and the test server both call this before they
 * listen, so tests see exactly what production does.
 */
import type { Services } from './services.js';
import { runUnderFleetLock } from './store/periodic-runs-repository.js';

export interface LeftoverSweepLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface LeftoverSweepResult {
  files: number;
  documents: number;
}

/** Sweeps both upload areas; a failure is logged and start-up goes on, since serving matters more than tidying. */
export async function sweepCrashLeftovers(
  services: Pick<Services, 'blobs' | 'files' | 'knowledgeDocuments' | 'settings' | 'store'>,
  logger: LeftoverSweepLogger,
): Promise<LeftoverSweepResult> {
  const grace = services.settings.uploadLeftoverGraceMilliseconds;
  const result: LeftoverSweepResult = { files: 0, documents: 0 };
  try {
    const sweep = await runUnderFleetLock(services.store.db, services.store.dialect, 'upload-leftover-sweep', async () => {
      result.files += await services.blobs.sweepUnfinished(grace);
      result.files += await services.files.sweepLeftovers(grace);
      const knowledge = await services.knowledgeDocuments.sweepLeftovers(grace);
      result.files += knowledge.files;
      result.documents += knowledge.documents;
    });
    if (!sweep.ran) logger.info({}, 'another process is sweeping the leftovers of interrupted uploads');
  } catch (error) {
    logger.error({ err: error }, 'sweeping the leftovers of interrupted uploads failed; start-up goes on');
    return result;
  }
  if (result.files > 0 || result.documents > 0) logger.info({ ...result }, 'removed the leftovers of interrupted uploads');
  return result;
}
