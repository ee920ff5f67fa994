/**
 * Answers that belong to their chat, not to the HTTP connection that asked (docs/chats.md, DESIGN
 * §8). A run is a `chat_runs` row this process holds under a lease: it goes on when its client
 * leaves, writes its events to the store in small batches (as soon as the previous batch is in, so
 * a live follower waits for no timer), and ends on its own, on Stop (a flag in the store, which
 * any process may set), when nobody has watched it for `unwatchedMillisecondsMaximum`, or when this
 * process stops. A client on any process follows a run from the store (`followStored`); a process
 * that dies leaves its run's lease to run out, and whoever looks next marks it interrupted and keeps
 * the answer it had logged (chat-run-sweep.ts, which also removes the logs of runs long ended).
 */
import { isUniqueViolation } from '../store/files-repository.js';
import type { Kysely } from 'kysely';
import { AppError, catalogue, type ErrorCode } from '../errors/app-error.js';
import type { PipelineEvent } from '../pipeline/conversation/events.js';
import {
  appendRunEvents,
  countRunningRunsOfOwner,
  findChatRun,
  findRunningRunOfChat,
  finishChatRun,
  insertChatRun,
  listRunEventsAfter,
  markRunWatched,
  renewRunLease,
  requestRunStop,
  type StoredRunEvent,
} from '../store/chat-runs-repository.js';
import type { Dialect } from '../store/dialect.js';
import type { ChatRunStatus, Database } from '../store/schema.js';
import type { PeriodicWork, PeriodicWorkLogger } from '../scheduling/periodic-work.js';
import { chatRunSweeps, settleInterruptedRuns, type ChatRunSweepResult, type KeepInterruptedAnswer } from './chat-run-sweep.js';
import { LiveRunFeed } from './live-run-feed.js';

export interface ChatRunKeeperOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  /** How long a lease lasts without renewal: a run whose process died is known as interrupted after it. */
  leaseMilliseconds: number;
  /** This process's name in leases. */
  leaseOwner: string;
  unwatchedMillisecondsMaximum: number;
  runsPerUserMaximum: number;
  /** Aborts when this process ends its streams: its runs end as interrupted, keeping what they have. */
  serverStopping: AbortSignal;
}

/** What the store's event log holds: the pipeline's events, and the error that ends a failed run. */
type StoredEvent = PipelineEvent | { type: 'error'; code: string; message: string };

/** How often a running run renews its lease, looks for Stop and checks that someone watches it. */
const CHECK_MILLISECONDS = 250;
/** How often a follower on another process looks for new events. */
const FOLLOW_POLL_MILLISECONDS = 100;
/** How often a follower tells the store it still watches. */
const WATCH_MARK_MILLISECONDS = 1_000;
const EVENTS_PER_READ = 500;

function timestamp(offsetMilliseconds = 0): string {
  return new Date(Date.now() + offsetMilliseconds).toISOString();
}

function storedError(error: unknown): StoredEvent {
  const failure = error instanceof AppError ? error : new AppError('upstream_error');
  return { type: 'error', code: failure.code, message: failure.message };
}

function replayedError(event: { code: string; message: string }): AppError {
  return event.code in catalogue ? new AppError(event.code as ErrorCode, event.message) : new AppError('internal_error');
}

/** One run this process produces. */
class KeptRun {
  readonly controller = new AbortController();
  readonly feed = new LiveRunFeed();
  endStatus: ChatRunStatus | undefined;
  lastWatchedAt = Date.now();
  private sequence = 0;
  private pending: StoredRunEvent[] = [];
  private flushing: Promise<void> | undefined;
  private readonly flushed = new Set<() => void>();

  constructor(
    readonly id: number,
    private readonly db: Kysely<Database>,
  ) {}

  end(status: ChatRunStatus): void {
    if (this.controller.signal.aborted) return;
    this.endStatus = status;
    this.controller.abort();
  }

  record(event: StoredEvent): void {
    this.pending.push({ sequence: ++this.sequence, event: JSON.stringify(event) });
    this.flushing ??= this.flush();
  }

  /** Writes what is pending, batch after batch, until nothing is; each batch holds what came while the last was written. */
  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        await appendRunEvents(this.db, this.id, batch);
        for (const notify of this.flushed) notify();
      }
    } finally {
      this.flushing = undefined;
    }
  }

  async allWritten(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.pending.length > 0) await this.flush();
  }

  /** Resolves at the next written batch (or after `milliseconds`), for followers on this process. */
  nextBatch(milliseconds: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.flushed.delete(done);
        resolve();
      };
      const timer = setTimeout(done, milliseconds);
      this.flushed.add(done);
    });
  }
}

export class ChatRunKeeper {
  private readonly runs = new Map<number, KeptRun>();
  private keepAnswer: KeepInterruptedAnswer = async () => {};
  private readonly sweeps: PeriodicWork<ChatRunSweepResult>;

  constructor(private readonly options: ChatRunKeeperOptions) {
    options.serverStopping.addEventListener('abort', () => {
      for (const run of this.runs.values()) run.end('interrupted');
    });
    this.sweeps = chatRunSweeps({
      db: options.db,
      dialect: options.dialect,
      leaseMilliseconds: options.leaseMilliseconds,
      runner: options.leaseOwner,
      keepAnswer: (chatId, answer) => this.keepAnswer(chatId, answer),
    });
  }

  /** How an interrupted run's answer is kept: the chat service's own way of keeping answers, registered once it exists. */
  keepInterruptedAnswersWith(keepAnswer: KeepInterruptedAnswer): void {
    this.keepAnswer = keepAnswer;
  }

  /** Starts the periodic sweep of interrupted runs and old run logs; `stopSweeps()` before the store closes. */
  startSweeps(logger: PeriodicWorkLogger): void {
    this.sweeps.start(logger);
  }

  stopSweeps(): Promise<void> {
    return this.sweeps.stop();
  }

  /** Marks runs whose lease lapsed interrupted and keeps their answers, as anyone who looks at runs does first. */
  private async settleInterrupted(): Promise<void> {
    await settleInterruptedRuns(this.db, timestamp(), this.keepAnswer);
  }

  private get db(): Kysely<Database> {
    return this.options.db;
  }

  /** Claims the chat's one running run for its owner, within the owner's bound; the signal ends the run. */
  async begin(chatId: number, ownerId: number): Promise<{ runId: number; signal: AbortSignal }> {
    await this.settleInterrupted();
    const now = timestamp();
    if ((await countRunningRunsOfOwner(this.db, ownerId)) >= this.options.runsPerUserMaximum)
      throw new AppError('chat_runs_limit', undefined, { details: { runs_maximum: this.options.runsPerUserMaximum } });
    let runId: number;
    try {
      runId = await insertChatRun(this.db, {
        chatId,
        ownerId,
        leaseOwner: this.options.leaseOwner,
        leaseExpiresAt: timestamp(this.options.leaseMilliseconds),
        now,
      });
    } catch (error) {
      // The partial unique index: another request, on any process, started this chat's answer first
      // (and may have finished it already, so the violation itself is the answer, not a second look).
      if (isUniqueViolation(error) || (await findRunningRunOfChat(this.db, chatId)) !== undefined)
        throw new AppError('chat_run_in_progress');
      throw error;
    }
    const run = new KeptRun(runId, this.db);
    this.runs.set(runId, run);
    if (this.options.serverStopping.aborted) run.end('interrupted');
    return { runId, signal: run.controller.signal };
  }

  /** A run that could not start (its model failed before any event): ended as failed. */
  async abandon(runId: number): Promise<void> {
    this.runs.delete(runId);
    await finishChatRun(this.db, runId, 'failed', timestamp());
  }

  /**
   * Produces the run in the background and returns a live follower of it for the request that
   * started it. The follower going away does not end the run.
   */
  produce(runId: number, events: AsyncGenerator<PipelineEvent>): AsyncGenerator<PipelineEvent> {
    const run = this.runs.get(runId);
    if (run === undefined) throw new AppError('internal_error');
    const follower = run.feed.follow();
    void this.pump(run, events);
    return follower;
  }

  private async pump(run: KeptRun, events: AsyncGenerator<PipelineEvent>): Promise<void> {
    const checks = this.watch(run);
    let status: ChatRunStatus = 'completed';
    let failure: unknown;
    try {
      for await (const event of events) {
        run.record(event);
        run.feed.publish({ kind: 'event', event });
      }
    } catch (error) {
      if (!run.controller.signal.aborted) {
        status = 'failed';
        failure = error;
        run.record(storedError(error));
      }
    } finally {
      clearInterval(checks);
    }
    if (run.controller.signal.aborted) status = run.endStatus ?? 'stopped';
    try {
      await run.allWritten();
    } finally {
      await finishChatRun(this.db, run.id, status, timestamp()).catch(() => undefined);
      this.runs.delete(run.id);
      run.feed.publish(failure === undefined ? { kind: 'end' } : { kind: 'error', error: failure });
    }
  }

  /** Every CHECK_MILLISECONDS: renew the lease, look for Stop, and end a run nobody has watched for too long. */
  private watch(run: KeptRun): NodeJS.Timeout {
    let checking = false;
    let leaseRenewedAt = Date.now();
    const timer = setInterval(() => {
      if (checking || run.controller.signal.aborted) return;
      checking = true;
      void this.check(run, leaseRenewedAt)
        .then((renewedAt) => (leaseRenewedAt = renewedAt))
        .catch(() => undefined)
        .finally(() => (checking = false));
    }, CHECK_MILLISECONDS);
    timer.unref();
    return timer;
  }

  private async check(run: KeptRun, leaseRenewedAt: number): Promise<number> {
    const now = Date.now();
    let renewedAt = leaseRenewedAt;
    if (now - leaseRenewedAt > this.options.leaseMilliseconds / 4) {
      // A run whose lease another process already declared expired is no longer ours to finish.
      if (!(await renewRunLease(this.db, run.id, this.options.leaseOwner, timestamp(this.options.leaseMilliseconds))))
        run.end('interrupted');
      renewedAt = now;
    }
    const stored = await findChatRun(this.db, run.id);
    if (stored?.stop_requested === 1) run.end('stopped');
    if (run.feed.followers > 0) run.lastWatchedAt = now;
    if (stored !== undefined) run.lastWatchedAt = Math.max(run.lastWatchedAt, Date.parse(stored.watched_at));
    if (now - run.lastWatchedAt > this.options.unwatchedMillisecondsMaximum) run.end('timed_out');
    return renewedAt;
  }

  /** Asks the chat's running run to stop, wherever it runs, and waits until it has ended and kept its answer. */
  async stop(chatId: number): Promise<void> {
    const running = await findRunningRunOfChat(this.db, chatId);
    if (running === undefined) return;
    await requestRunStop(this.db, chatId);
    this.runs.get(running.id)?.end('stopped');
    const deadline = Date.now() + this.options.leaseMilliseconds;
    for (;;) {
      const run = await findChatRun(this.db, running.id);
      if (run === undefined || run.status !== 'running') return;
      if (run.lease_expires_at < timestamp() || Date.now() > deadline) {
        await this.settleInterrupted();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MILLISECONDS));
    }
  }

  /** The chat's running run, if any (one whose lease ran out is marked interrupted, and is not). */
  async running(chatId: number): Promise<number | undefined> {
    await this.settleInterrupted();
    return (await findRunningRunOfChat(this.db, chatId))?.id;
  }

  /**
   * The run's events from its first, read from the store, and then as they are written, until it
   * ends: what a client rejoining on any process follows. An interrupted run ends with
   * `chat_run_interrupted`, a failed one with its error.
   */
  async *followStored(runId: number, signal: AbortSignal): AsyncGenerator<PipelineEvent> {
    let after = 0;
    let watchMarkedAt = 0;
    let ended = false;
    while (!signal.aborted) {
      const rows = await listRunEventsAfter(this.db, runId, after, EVENTS_PER_READ);
      for (const row of rows) {
        after = row.sequence;
        const event = JSON.parse(row.event) as StoredEvent;
        if (event.type === 'error') throw replayedError(event);
        yield event;
      }
      if (rows.length === EVENTS_PER_READ) continue;
      if (ended) return;
      const run = await findChatRun(this.db, runId);
      if (run === undefined) return;
      if (run.status === 'interrupted') throw new AppError('chat_run_interrupted');
      // Events are all written before a run is marked ended: one more read takes the last of them.
      if (run.status !== 'running') ended = true;
      else if (run.lease_expires_at < timestamp()) {
        await this.settleInterrupted();
        throw new AppError('chat_run_interrupted');
      } else {
        if (Date.now() - watchMarkedAt > WATCH_MARK_MILLISECONDS) {
          await markRunWatched(this.db, runId, timestamp());
          watchMarkedAt = Date.now();
        }
        await this.nextBatch(runId, signal);
      }
    }
  }

  private async nextBatch(runId: number, signal: AbortSignal): Promise<void> {
    const local = this.runs.get(runId);
    if (local !== undefined) return local.nextBatch(FOLLOW_POLL_MILLISECONDS);
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, FOLLOW_POLL_MILLISECONDS);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
