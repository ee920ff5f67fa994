/**
 * The leases of the test runs this process runs (docs/assistant-tests.md, "Runs cut short"): each
 * run's row names this process and a time until which it promises to renew, renewed four times
 * per TEST_RUN_LEASE_MS while the run goes on. A run another process has meanwhile declared
 * interrupted (the lease had lapsed, say after a long pause) is abandoned here too. Also the
 * periodic sweep of runs whose process died (test-run-sweep.ts), and a read of one run that
 * settles it first, as every reader does.
 */
import type { Kysely } from 'kysely';
import { PeriodicWork, type PeriodicWorkLogger } from '../scheduling/periodic-work.js';
import { findTestRun, renewTestRunLease, type TestRunRow } from '../store/assistant-tests-repository.js';
import type { Dialect } from '../store/dialect.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { interruptAbandoned, testRunSweeps } from './test-run-sweep.js';

export interface TestRunLeaseOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  /** This process's name in leases (runner-identity.ts). */
  leaseOwner: string;
  limits: { leaseMilliseconds: number };
}

export class TestRunLeases {
  private readonly sweeps: PeriodicWork<number>;
  private firstSweep: Promise<unknown> | undefined;

  constructor(private readonly options: TestRunLeaseOptions) {
    this.sweeps = testRunSweeps({
      db: options.db,
      dialect: options.dialect,
      leaseMilliseconds: options.limits.leaseMilliseconds,
      runner: options.leaseOwner,
    });
  }

  /** When a lease taken or renewed now runs out. */
  expiry(): string {
    return new Date(Date.now() + this.options.limits.leaseMilliseconds).toISOString();
  }

  /** Renews the run's lease four times per lease until the timer is cleared; a lost lease aborts the run. */
  keep(runId: number, controller: AbortController): NodeJS.Timeout {
    const run = { id: runId, leaseOwner: this.options.leaseOwner };
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      renewTestRunLease(this.options.db, run, this.expiry())
        .then((held) => {
          if (!held) controller.abort();
        })
        // A failed renewal is tried again at the next tick; the lease outlasts three of them.
        .catch(() => undefined)
        .finally(() => (renewing = false));
    }, this.options.limits.leaseMilliseconds / 4);
    timer.unref();
    return timer;
  }

  /** The run as it stands, marked interrupted first if its process can no longer finish it. */
  async findSettled(assistantId: number, runId: number): Promise<TestRunRow | undefined> {
    const { db } = this.options;
    const row = await findTestRun(db, assistantId, runId);
    if (row?.status !== 'running' || (await interruptAbandoned(db, [row], nowTimestamp())) === 0) return row;
    return findTestRun(db, assistantId, runId);
  }

  /** Sweeps the runs of processes that died once now, then every lease; `stopSweeps()` before the store closes. */
  startSweeps(logger: PeriodicWorkLogger): void {
    this.firstSweep ??= this.sweeps.runIfDue().then(
      (outcome) => {
        if (outcome.ran && outcome.result > 0)
          logger.info({ interrupted: outcome.result }, 'test runs of stopped processes marked interrupted');
      },
      () => logger.error({}, 'sweeping the test runs of stopped processes failed; start-up goes on'),
    );
    this.sweeps.start(logger);
  }

  async stopSweeps(): Promise<void> {
    await this.firstSweep;
    await this.sweeps.stop();
  }
}
