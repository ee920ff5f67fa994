/**
 * What the fleet removes after a process that was killed mid-upload (`kill -9`, a lost machine):
 * temporary `.upload-*.part` files, staged knowledge-base uploads and stored files no row names,
 * once older than UPLOAD_LEFTOVER_GRACE_MS (a live upload keeps writing its file, and the steps
 * between writing bytes and their row take milliseconds, never that long); and knowledge-base
 * documents whose upload was cut short between their row and their job, which are marked failed
 * ("the upload was interrupted") as soon as the process holding them is gone from this machine or
 * has let its upload lease (UPLOAD_LEASE_MS) run out, so a teacher sees what happened and uploads
 * again; and crawls of same-site links whose process is gone the same way (WEB_CRAWL_LEASE_MS),
 * marked failed with the pages they read kept (knowledge/web-sources/abandoned-web-crawls.ts). Every process sweeps once before it listens, so a restart right after a crash finds
 * what its predecessor left; and the sweep runs again every UPLOAD_SWEEP_INTERVAL_MS as periodic
 * work (scheduling/periodic-work.ts), since a server that stays up, or a crash on another
 * machine, would otherwise leave them for good. Both take the same fleet-wide lock: one process
 * sweeps, the others skip, as they share the storage it sweeps. main.ts and the test server both
 * call this, so tests see exactly what production does.
 */
import { runnerOwnerName } from '../ingestion/runner-identity.js';
import { PeriodicWork, type PeriodicWorkLogger } from '../scheduling/periodic-work.js';
import type { Services } from '../services.js';
import { runUnderFleetLock } from '../store/periodic-runs-repository.js';

/** Names the lock, and the periodic work's claim row, that both the start-up and the periodic sweep take. */
export const UPLOAD_LEFTOVER_SWEEP = 'upload-leftover-sweep';

export interface LeftoverSweepLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface LeftoverSweepResult {
  files: number;
  /** Documents marked failed because their upload was interrupted. */
  documents: number;
  /** Crawls of same-site links marked failed because their process is gone. */
  crawls: number;
}

type SweptServices = Pick<Services, 'blobs' | 'files' | 'knowledgeDocuments' | 'settings' | 'store' | 'webCrawls'>;

/** One pass over both upload areas; the caller holds the fleet-wide lock. */
async function sweepOnce(services: SweptServices): Promise<LeftoverSweepResult> {
  const grace = services.settings.uploadLeftoverGraceMilliseconds;
  const result: LeftoverSweepResult = { files: 0, documents: 0, crawls: 0 };
  result.files += await services.blobs.sweepUnfinished(grace);
  result.files += await services.files.sweepLeftovers(grace);
  const knowledge = await services.knowledgeDocuments.sweepLeftovers(grace);
  result.files += knowledge.files;
  result.documents += knowledge.documents;
  result.crawls += await services.webCrawls.failAbandoned();
  return result;
}

/** The start-up sweep; a failure is logged and start-up goes on, since serving matters more than tidying. */
export async function sweepCrashLeftovers(services: SweptServices, logger: LeftoverSweepLogger): Promise<LeftoverSweepResult> {
  let result: LeftoverSweepResult = { files: 0, documents: 0, crawls: 0 };
  try {
    const sweep = await runUnderFleetLock(services.store.db, services.store.dialect, UPLOAD_LEFTOVER_SWEEP, () => sweepOnce(services));
    if (!sweep.ran) logger.info({}, 'another process is sweeping the leftovers of interrupted uploads');
    else result = sweep.result;
  } catch (error) {
    logger.error({ err: error }, 'sweeping the leftovers of interrupted uploads failed; start-up goes on');
    return result;
  }
  if (result.files > 0 || result.documents > 0 || result.crawls > 0)
    logger.info({ ...result }, 'removed the leftovers of interrupted uploads');
  return result;
}

/**
 * Starts the periodic sweep; the caller stops it (`stop()` waits for a pass in progress) before
 * it closes the blob storage and the store. A pass that finds something logs "periodic work done"
 * with `work: upload-leftover-sweep` and the counts.
 */
export function startLeftoverSweeps(services: SweptServices, logger: PeriodicWorkLogger): PeriodicWork<LeftoverSweepResult> {
  const sweeps = new PeriodicWork<LeftoverSweepResult>({
    db: services.store.db,
    dialect: services.store.dialect,
    name: UPLOAD_LEFTOVER_SWEEP,
    intervalMilliseconds: services.settings.uploadSweepIntervalMilliseconds,
    runner: runnerOwnerName(),
    work: () => sweepOnce(services),
    describe: (result) => (result.files > 0 || result.documents > 0 || result.crawls > 0 ? { ...result } : undefined),
  });
  sweeps.start(logger);
  return sweeps;
}
