/**
 * Work that a fleet of processes must do every so often, done by one of them: each process keeps
 * a timer, and when it fires the process takes the fleet-wide lock (PostgreSQL advisory lock) and
 * claims the run in the store; a process that finds the lock taken, or a run started less than an
 * interval ago, skips. So the work never runs twice at once, and runs about once per interval
 * however many processes there are.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../store/dialect.js';
import { claimPeriodicRun, finishPeriodicRun, runUnderFleetLock } from '../store/periodic-runs-repository.js';
import type { Database } from '../store/schema.js';

export interface PeriodicWorkLogger {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface PeriodicWorkOptions<Result> {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Names the work in the store and in logs, e.g. `chat-retention-purge`. */
  name: string;
  intervalMilliseconds: number;
  /** This process, as it signs its runs. */
  runner: string;
  work: () => Promise<Result>;
  /** What to log after a run that did something; undefined logs nothing. */
  describe: (result: Result) => Record<string, unknown> | undefined;
}

export type PeriodicRunOutcome<Result> = { ran: true; result: Result } | { ran: false };

export class PeriodicWork<Result> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: PeriodicWorkOptions<Result>) {}

  /** One scheduled attempt: runs the work unless another process runs it now or ran it less than an interval before `now`. */
  async runIfDue(now: number = Date.now()): Promise<PeriodicRunOutcome<Result>> {
    const { db, dialect, name, runner, intervalMilliseconds, work } = this.options;
    const outcome = await runUnderFleetLock(db, dialect, name, async (): Promise<PeriodicRunOutcome<Result>> => {
      if (!(await claimPeriodicRun(db, { name, runner, now, spacingMilliseconds: intervalMilliseconds }))) return { ran: false };
      const result = await work();
      await finishPeriodicRun(db, name, Date.now());
      return { ran: true, result };
    });
    return outcome.ran ? outcome.result : outcome;
  }

  start(logger: PeriodicWorkLogger): void {
    if (this.timer !== undefined) return;
    const { name, intervalMilliseconds, describe } = this.options;
    this.timer = setInterval(() => {
      if (this.running !== undefined) return;
      this.running = this.runIfDue()
        .then((outcome) => {
          const fields = outcome.ran ? describe(outcome.result) : undefined;
          if (fields !== undefined) logger.info({ work: name, ...fields }, 'periodic work done');
        })
        .catch((error: unknown) =>
          logger.error({ work: name, errorName: (error as Error | null | undefined)?.name }, 'periodic work failed'),
        )
        .finally(() => {
          this.running = undefined;
        });
    }, intervalMilliseconds);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
