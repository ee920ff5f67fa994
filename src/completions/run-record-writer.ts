/**
 * Writes what the store keeps of each run (its usage-log row and, for a verbose assistant, its
 * trace) off the response path, in batches. A run's records are queued when it ends and written
 * within RUN_RECORD_WINDOW_MS, together with every other run's that ended meanwhile, in one
 * transaction: one commit for many runs instead of one or two each. A batch is written at once
 * when it reaches RUN_RECORD_BATCH_MAX records, and whatever is queued is written when the process
 * stops gracefully (close). A process killed with SIGKILL loses the records of the runs that
 * ended in the last window, never part of a batch (docs/deployment.md, "Caches").
 *
 * Each usage row adds itself to the daily roll-up (src/usage/usage-roll-up.ts) in the transaction
 * that inserts it, so reports never disagree with the logs; the quota reservation a run held is
 * deleted in that same transaction, so quotas see the run either as held or as used, never as
 * neither (src/usage/quota-admission.ts).
 *
 * With a window of 0 nothing is queued: each run's records are written before its answer ends,
 * and a record that cannot be written fails the run, as the store's other writes do.
 */
import type { Insertable, Kysely } from 'kysely';
import type { Database, TracesTable, UsageLogsTable } from '../store/schema.js';
import { insertTrace, insertTraces } from '../store/traces-repository.js';
import { insertUsageLog, insertUsageLogs } from '../store/usage-logs-repository.js';
import { deleteReservations } from '../store/quota-repository.js';
import { rollUpUsage } from '../usage/usage-roll-up.js';

export interface RunRecordWriterOptions {
  windowMilliseconds: number;
  batchMaximum: number;
}

/**
 * A trace as queued: its JSON is made when its batch is written rather than when the run ends, so
 * serializing it never delays the answer.
 */
export interface QueuedTrace extends Omit<TracesTable, 'trace'> {
  traceJson: () => string;
}

function traceRow({ traceJson, ...row }: QueuedTrace): TracesTable {
  return { ...row, trace: traceJson() };
}

/** The rows of one run: its usage log, and its trace when the assistant is verbose. */
export interface RunRecords {
  usage: Insertable<UsageLogsTable>;
  trace?: QueuedTrace;
  /** The quota reservation these rows settle: deleted in the transaction that adds them to the roll-up. */
  settles?: number | undefined;
}

/** Rows per INSERT: 12 columns each keeps a statement far below SQLite's 32,766 parameters. */
const ROWS_PER_STATEMENT = 200;

function inSlices<Row>(rows: readonly Row[]): Row[][] {
  const slices: Row[][] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) slices.push(rows.slice(start, start + ROWS_PER_STATEMENT));
  return slices;
}

export class RunRecordWriter {
  private queue: RunRecords[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The batch being written, so that flush and close wait for it too. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: RunRecordWriterOptions,
  ) {}

  /** Queues one run's records, or with a window of 0 writes them before answering. */
  async write(records: RunRecords): Promise<void> {
    if (this.options.windowMilliseconds <= 0) {
      await this.writeOne(this.db, records);
      return;
    }
    this.queue.push(records);
    if (this.queue.length >= this.options.batchMaximum) this.startBatch();
    else this.timer ??= setTimeout(() => this.startBatch(), this.options.windowMilliseconds);
  }

  /** Writes whatever is queued and waits until it is in the store: readers in this process then see it. */
  async flush(): Promise<void> {
    if (this.queue.length > 0) this.startBatch();
    await this.writing;
  }

  /** For a graceful stop: nothing queued is left behind. */
  async close(): Promise<void> {
    await this.flush();
  }

  private startBatch(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    this.writing = this.writing.then(() => this.writeQueued(batch));
  }

  /**
   * One transaction for the batch. If it fails (a trace whose assistant was deleted meanwhile, or
   * a store that is briefly unavailable), each run is tried on its own, so one bad row does not
   * take the others with it; a run that still cannot be written is lost, its answer long sent.
   */
  private async writeQueued(batch: readonly RunRecords[]): Promise<void> {
    try {
      await this.db.transaction().execute((transaction) => this.writeBatch(transaction, batch));
    } catch {
      for (const records of batch) await this.writeOne(this.db, records).catch(() => undefined);
    }
  }

  private async writeOne(db: Kysely<Database>, records: RunRecords): Promise<void> {
    await db.transaction().execute(async (transaction) => {
      await insertUsageLog(transaction, records.usage);
      await rollUpUsage(transaction, [records.usage]);
      if (records.trace !== undefined) await insertTrace(transaction, traceRow(records.trace));
      if (records.settles !== undefined) await deleteReservations(transaction, [records.settles]);
    });
  }

  private async writeBatch(db: Kysely<Database>, batch: readonly RunRecords[]): Promise<void> {
    const usage = batch.map((records) => records.usage);
    for (const rows of inSlices(usage)) await insertUsageLogs(db, rows);
    await rollUpUsage(db, usage);
    const traces = batch.flatMap((records) => (records.trace === undefined ? [] : [traceRow(records.trace)]));
    for (const rows of inSlices(traces)) await insertTraces(db, rows);
    const settled = batch.flatMap((records) => (records.settles === undefined ? [] : [records.settles]));
    for (const ids of inSlices(settled)) await deleteReservations(db, ids);
  }
}
