/**
 * Test runs whose process died (docs/assistant-tests.md, "Runs cut short"). A running run is held
 * under a lease its process renews four times per TEST_RUN_LEASE_MS; a run whose lease lapsed, or
 * whose process is known dead on this machine (runner-identity.ts: a restart right after `kill -9`
 * need not wait for the lease), will never finish, so whoever looks first (a start, a list, a
 * read, an event stream, or this sweep) marks it `interrupted` and keeps the results it finished.
 * A live process's run is never taken: its lease is renewed, and its pid answers. The sweep is
 * periodic work (one process of the fleet at a time), every TEST_RUN_LEASE_MS, and once at start-up.
 */
import type { Kysely } from 'kysely';
import { isDeadLocalOwner } from '../ingestion/runner-identity.js';
import { PeriodicWork } from '../scheduling/periodic-work.js';
import { interruptTestRun, listRunningTestRuns, type RunningTestRun } from '../store/assistant-tests-repository.js';
import type { Dialect } from '../store/dialect.js';
import type { Database } from '../store/schema.js';

export const TEST_RUN_SWEEP = 'test-run-sweep';

/** Whether the run's process can no longer finish it: its lease lapsed before `now`, or it is dead here. */
export function isAbandoned(run: RunningTestRun, now: string): boolean {
  if (run.lease_owner === null || run.lease_expires_at === null) return true;
  return run.lease_expires_at < now || isDeadLocalOwner(run.lease_owner);
}

/** Marks the abandoned runs among `runs` interrupted; answers how many this caller marked. */
export async function interruptAbandoned(db: Kysely<Database>, runs: readonly RunningTestRun[], now: string): Promise<number> {
  let interrupted = 0;
  for (const run of runs) if (isAbandoned(run, now) && (await interruptTestRun(db, run, now))) interrupted += 1;
  return interrupted;
}

/** One pass over the running runs of one assistant, or of all of them. */
export async function sweepTestRuns(db: Kysely<Database>, assistantId?: number): Promise<number> {
  return interruptAbandoned(db, await listRunningTestRuns(db, assistantId), new Date().toISOString());
}

export interface TestRunSweepOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  leaseMilliseconds: number;
  runner: string;
}

export function testRunSweeps(options: TestRunSweepOptions): PeriodicWork<number> {
  return new PeriodicWork<number>({
    db: options.db,
    dialect: options.dialect,
    name: TEST_RUN_SWEEP,
    intervalMilliseconds: options.leaseMilliseconds,
    runner: options.runner,
    work: () => sweepTestRuns(options.db),
    describe: (interrupted) => (interrupted > 0 ? { interrupted } : undefined),
  });
}
