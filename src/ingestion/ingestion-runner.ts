/**
 * The ingestion runner: polls for work and holds up to INGESTION_JOBS_IN_FLIGHT jobs at a time
 * (a claim of small text documents may go past it, by at most one claim), under leases it renews
 * while working. It claims jobs in batches (one statement takes up to INGESTION_CLAIM_BATCH_MAX
 * jobs, or INGESTION_TEXT_CLAIM_BATCH_MAX small text documents, never
 * more bytes of documents in hand than INGESTION_BYTES_IN_FLIGHT allows, though a runner holding
 * nothing always takes the next job however large), and several runners (and processes) never take the same job. A batch is worked
 * on together (ingestion-batch-work.ts): read the stored files → extract and chunk them → embed
 * the chunks when the knowledge base has an embedding model → read their entities when it builds
 * an entity graph → in one transaction replace the documents' chunks and mark jobs and documents
 * completed. Between steps it records progress, which also tells it which jobs were cancelled (or
 * taken over) meanwhile; those stop without anything more written. A process killed mid-job leaves
 * the job `processing` under a lease that expires, and the next runner to poll starts it again
 * from scratch: replacing the chunks in one transaction makes that safe. A runner starting on the
 * machine where that process died need not wait for the lease: it releases the leases of dead
 * local processes first (see runner-identity.ts). And a job cut short as often as
 * INGESTION_ATTEMPTS_MAX allows is failed by the claim instead of started again. Extraction and
 * chunking run on the runner's pool of long-lived worker threads (document-worker-pool.ts), which
 * stop() terminates once the jobs in hand have ended.
 */
import type { Kysely } from 'kysely';
import type { FileStorage } from '../files/file-storage.js';
import type { Dialect } from '../store/dialect.js';
import { finishIngestionJobs, renewIngestionLeases } from '../store/ingestion-jobs-repository.js';
import {
  claimIngestionJobs,
  expireIngestionLeases,
  listIngestionLeaseOwners,
  type ClaimedJob,
} from '../store/ingestion-job-claims-repository.js';
import { setDocumentsStatus } from '../store/knowledge-documents-repository.js';
import type { VectorBackend } from '../store/chunk-vector-repository.js';
import type { GraphStageOptions } from './entity-graph-stage.js';
import type { Database } from '../store/schema.js';
import { reindexNextBatchOnPool } from './stored-chunk-analysis.js';
import { DEFAULT_DOCUMENT_WORKER_BUDGET, type DocumentWorkerBudget } from './document-worker-contract.js';
import { DocumentWorkerPool, isSmallTextDocument } from './document-worker-pool.js';
import type { ExtractionLimits } from '../document-reading/extraction.js';
import type { Embedder } from '../retrieval/organization-embedder.js';
import { IngestionBatchWork, INTERNAL_FAILURE, type IngestionLogger } from './ingestion-batch-work.js';
import { isDeadLocalOwner, runnerOwnerName } from './runner-identity.js';

/** How long a claimed job stays ours without a renewal (INGESTION_LEASE_MS); renewed every third of it while working. */
export const INGESTION_LEASE_MILLISECONDS = 60_000;
/** INGESTION_ATTEMPTS_MAX's default: how many starts a job gets before being cut short once more fails it. */
export const INGESTION_ATTEMPTS_MAXIMUM = 3;
/**
 * The defaults of INGESTION_JOBS_IN_FLIGHT, INGESTION_CLAIM_BATCH_MAX, INGESTION_TEXT_CLAIM_BATCH_MAX,
 * INGESTION_BYTES_IN_FLIGHT, INGESTION_WORKER_THREADS, INGESTION_WORKER_DOCUMENTS_MAX and
 * INGESTION_WORKER_BATCH_MAX.
 */
export const INGESTION_CONCURRENCY_DEFAULTS: Readonly<IngestionConcurrency> = {
  jobsInFlightMaximum: 64,
  claimBatchMaximum: 32,
  textClaimBatchMaximum: 256,
  bytesInFlightMaximum: 64 * 1024 * 1024,
  workerThreads: 2,
  documentsPerThreadMaximum: 500,
  batchMaximum: 16,
};
const DEFAULT_EMBEDDING_BATCH_SIZE = 64;

export interface IngestionRunnerOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  vectorBackend: VectorBackend;
  storage: FileStorage;
  pollMilliseconds: number;
  leaseMilliseconds?: number;
  /** A job cut short after this many starts since it was queued fails instead of starting again. */
  attemptsMaximum?: number;
  /** Embeds the chunks of knowledge bases that have an embedding model. */
  embedder?: Embedder;
  embeddingBatchSize?: number;
  /** The budgets of the worker threads that extract and chunk each document, and the extraction limits they apply. */
  documentProcessing?: { budget?: DocumentWorkerBudget; limits?: Partial<ExtractionLimits> };
  /** How many jobs run at once, and the pool of worker threads they share. */
  concurrency?: Partial<IngestionConcurrency>;
  /** The small fast model and bounds of the entity-graph stage; without it, no graph is built. */
  graph?: GraphStageOptions;
}

export interface IngestionConcurrency {
  /**
   * Jobs this runner works on at once (INGESTION_JOBS_IN_FLIGHT); a claim of small texts, made while
   * it holds fewer than this or than `textClaimBatchMaximum`, may go past it.
   */
  jobsInFlightMaximum: number;
  /** Jobs one claim takes, to be worked on and finished together (INGESTION_CLAIM_BATCH_MAX). */
  claimBatchMaximum: number;
  /**
   * Small text documents one claim takes when the oldest waiting job is one (INGESTION_TEXT_CLAIM_BATCH_MAX);
   * a runner holding fewer jobs may claim such a batch, so one batch's index is written while the
   * next is read and analysed on the worker threads.
   */
  textClaimBatchMaximum: number;
  /** Bytes of documents the jobs in hand may add up to; one job alone may be larger (INGESTION_BYTES_IN_FLIGHT). */
  bytesInFlightMaximum: number;
  /** Worker threads of its pool (INGESTION_WORKER_THREADS). */
  workerThreads: number;
  /** Documents a thread processes before it is replaced (INGESTION_WORKER_DOCUMENTS_MAX). */
  documentsPerThreadMaximum: number;
  /** Small text documents per message to a thread (INGESTION_WORKER_BATCH_MAX). */
  batchMaximum: number;
}

export class IngestionRunner {
  /** Names this runner in `lease_owner`: machine, process and a random part, unique across processes and runners. */
  readonly owner = runnerOwnerName();
  private readonly leaseMilliseconds: number;
  private readonly attemptsMaximum: number;
  private readonly concurrency: IngestionConcurrency;
  /** The first poll after start takes back the jobs of dead processes of this machine; later ones need not. */
  private deadLeasesReleased = false;
  private timer: NodeJS.Timeout | undefined;
  /** When `timer` fires (Date.now() time): an earlier call replaces it, a later one leaves it. */
  private timerDueAt = 0;
  /** The claiming pass under way, if any: at most one at a time. */
  private claiming: Promise<void> | undefined;
  /** A job ended (room was made) or a reindex step ran while a pass was under way: claim again as soon as it ends. */
  private claimAgain = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** The ids of the jobs in flight: a claim never takes one of them back from this runner itself. */
  private readonly heldJobIds = new Set<number>();
  /** The bytes of the documents of the jobs in flight. */
  private bytesInHand = 0;
  /** Started with the first job, terminated by stop(). */
  private pool: DocumentWorkerPool | undefined;
  private stopped = true;
  /** Settles when the last batch of small texts to take its turn has written. */
  private lastWriteTurn: Promise<void> = Promise.resolve();
  /** The jobs of the batch of small texts writing now: a claim does not count them (see takeWriteTurn). */
  private jobsWriting = 0;
  private logger: IngestionLogger | undefined;

  constructor(private readonly options: IngestionRunnerOptions) {
    this.leaseMilliseconds = options.leaseMilliseconds ?? INGESTION_LEASE_MILLISECONDS;
    this.attemptsMaximum = options.attemptsMaximum ?? INGESTION_ATTEMPTS_MAXIMUM;
    this.concurrency = { ...INGESTION_CONCURRENCY_DEFAULTS, ...options.concurrency };
  }

  /** Starts polling; `logger` (the server's) receives a line per claim and per batch finished, and one per job failed. */
  start(logger?: IngestionLogger): void {
    if (logger !== undefined) this.logger = logger;
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops claiming, waits for the jobs in hand to finish, then terminates the worker threads. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.claiming;
    await Promise.allSettled([...this.inFlight]);
    await this.pool?.close();
    this.pool = undefined;
  }

  /** Jobs being worked on now (for tests and operators). */
  get jobsInFlight(): number {
    return this.heldJobIds.size;
  }

  /**
   * Claims after `delay` ms, or sooner if a pass is already due sooner. A runner looks again after
   * INGESTION_POLL_MS whether or not it holds jobs, and at once when one of its jobs ends (which
   * makes room). Before, a runner holding jobs looked again at once while nothing waited, so every
   * job in hand meant claim queries back to back for as long as it lasted.
   */
  private schedule(delay: number): void {
    if (this.stopped) return;
    if (this.claiming !== undefined) {
      if (delay === 0) this.claimAgain = true;
      return;
    }
    const dueAt = Date.now() + delay;
    if (this.timer !== undefined) {
      if (this.timerDueAt <= dueAt) return;
      clearTimeout(this.timer);
    }
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.claiming = this.claimWhileRoom().then(() => {
        this.claiming = undefined;
        const again = this.claimAgain;
        this.claimAgain = false;
        this.schedule(again ? 0 : this.options.pollMilliseconds);
      });
    }, delay);
  }

  /** Claims jobs until INGESTION_JOBS_IN_FLIGHT are in hand, none is waiting, or what waits does not fit; then, with no job waiting or in hand, one reindex step. */
  private async claimWhileRoom(): Promise<void> {
    let idle = false;
    try {
      if (!this.deadLeasesReleased) {
        await this.releaseDeadLocalLeases();
        this.deadLeasesReleased = true;
      }
      const { jobsInFlightMaximum, textClaimBatchMaximum } = this.concurrency;
      // Past INGESTION_JOBS_IN_FLIGHT only a batch of small texts can be claimed (claimBatch).
      while (!this.stopped && this.jobsBeforeTheirWrite() < Math.max(jobsInFlightMaximum, textClaimBatchMaximum)) {
        const claimed = await this.claimBatch();
        if (claimed === 'none') {
          idle = true;
          break;
        }
        if (claimed === 'no room') break;
        if (claimed !== 'failed only') this.track(claimed);
      }
      // Search-index job, only when no upload waits or is in hand; analysed on the pool.
      const reindexing = idle && this.heldJobIds.size === 0 && !this.stopped;
      if (reindexing && (await reindexNextBatchOnPool(this.options.db, () => this.workerPool())) !== undefined) this.claimAgain = true;
    } catch (error) {
      this.logger?.error({ err: error }, 'ingestion runner failed to claim or finish a job');
    }
  }

  private track(batch: ClaimedBatch): void {
    for (const job of batch.jobs) this.heldJobIds.add(job.id);
    this.bytesInHand += batch.bytes;
    const running: Promise<void> = this.runClaimed(batch)
      .catch((error: unknown) => this.logger?.error({ err: error }, 'ingestion runner failed to finish a batch of jobs'))
      .finally(() => {
        this.inFlight.delete(running);
        for (const job of batch.jobs) this.heldJobIds.delete(job.id);
        this.bytesInHand -= batch.bytes;
        this.schedule(0);
      });
    this.inFlight.add(running);
  }

  /** The jobs in hand less those of the batch of small texts writing now. */
  private jobsBeforeTheirWrite(): number {
    return this.heldJobIds.size - this.jobsWriting;
  }

  /**
   * Waits until the batches of small texts claimed before have written, then lets the runner claim
   * the next whole batch while this one writes: it is read and analysed on the worker threads
   * meanwhile, which otherwise sat idle for the write (65 to 110 ms of a batch's 95 to 140 on
   * PostgreSQL). The batches write one at a time, in the order they reach their write. PostgreSQL
   * only: on SQLite the write runs on the event loop itself (better-sqlite3 is synchronous), so
   * nothing overlaps it, and claiming meanwhile only cost CPU (docs/knowledge-bases.md).
   */
  private async takeWriteTurn(jobs: number): Promise<() => void> {
    const previous = this.lastWriteTurn;
    let endTurn!: () => void;
    this.lastWriteTurn = new Promise<void>((resolve) => {
      endTurn = resolve;
    });
    await previous;
    this.jobsWriting = jobs;
    this.schedule(0);
    return () => {
      this.jobsWriting = 0;
      endTurn();
    };
  }

  private leaseUntil(): string {
    return new Date(Date.now() + this.leaseMilliseconds).toISOString();
  }

  /**
   * Ends the leases held by processes of this machine that have died (a server killed and
   * restarted), so that their jobs resume now rather than when the leases would have run out.
   */
  private async releaseDeadLocalLeases(): Promise<void> {
    const dead = (await listIngestionLeaseOwners(this.options.db)).filter(isDeadLocalOwner);
    if (dead.length === 0) return;
    const released = await expireIngestionLeases(this.options.db, dead);
    this.logger?.info({ jobs: released, dead_runners: dead.length }, 'ingestion jobs of dead processes on this machine released');
  }

  /**
   * Claims a batch: the jobs, 'failed only' when the claim only failed jobs out of attempts, 'none'
   * when nothing waits, 'no room' when what waits does not fit the bytes in hand (a job ending makes room).
   */
  private async claimBatch(): Promise<ClaimedBatch | 'failed only' | 'none' | 'no room'> {
    const { jobsInFlightMaximum, claimBatchMaximum, textClaimBatchMaximum, bytesInFlightMaximum } = this.concurrency;
    const room = Math.max(0, jobsInFlightMaximum - this.jobsBeforeTheirWrite());
    // Claimed while a batch of small texts writes: only a whole batch, or none until the write ends.
    const whileWriting = this.jobsWriting > 0;
    const { jobs, bytes, failedJobs, waiting, smallTexts } = await claimIngestionJobs(this.options.db, this.options.dialect, {
      owner: this.owner,
      leaseExpiresAt: this.leaseUntil(),
      attemptsMaximum: this.attemptsMaximum,
      heldJobIds: [...this.heldJobIds],
      jobsMaximum: Math.min(claimBatchMaximum, room),
      // Not cut to the room left: a batch of small texts is cheap to hold, and the larger it is,
      // the fewer transactions write its index (bench/full-text-index-writes.bench.ts).
      smallTexts: {
        jobsMaximum: textClaimBatchMaximum,
        ...(whileWriting && { jobsMinimum: textClaimBatchMaximum }),
        isSmall: isSmallTextDocument,
      },
      bytesMaximum: Math.max(0, bytesInFlightMaximum - this.bytesInHand),
      firstJobAlways: this.heldJobIds.size === 0,
    });
    for (const failed of failedJobs) {
      this.logger?.error(
        { job_id: failed.id, document_id: failed.documentId, attempts: failed.attempts },
        'ingestion job failed: the server stopped during every attempt',
      );
    }
    if (jobs.length === 0) return failedJobs.length > 0 ? 'failed only' : waiting ? 'no room' : 'none';
    // One line a claim, not a job: a claim of hundreds of small texts is one decision.
    this.logger?.info(
      { job_ids: jobs.map((job) => job.id), document_ids: jobs.map((job) => job.document_id), attempts: jobs.map((job) => job.attempts) },
      'ingestion jobs claimed',
    );
    return { jobs, bytes, smallTexts };
  }

  /** Runs a claimed batch to its end, renewing its jobs' leases meanwhile. */
  private async runClaimed({ jobs, smallTexts }: ClaimedBatch): Promise<void> {
    const work = new IngestionBatchWork(
      {
        db: this.options.db,
        vectorBackend: this.options.vectorBackend,
        storage: this.options.storage,
        owner: this.owner,
        leaseUntil: () => this.leaseUntil(),
        pool: () => this.workerPool(),
        ...(this.options.embedder !== undefined && { embedder: this.options.embedder }),
        embeddingBatchSize: this.options.embeddingBatchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE,
        limits: this.options.documentProcessing?.limits ?? {},
        ...(this.options.graph !== undefined && { graph: this.options.graph }),
        ...(this.logger !== undefined && { logger: this.logger }),
        ...(smallTexts && this.options.dialect === 'postgres' && { writeTurn: (count: number) => this.takeWriteTurn(count) }),
      },
      jobs,
    );
    const renewal = setInterval(
      () => {
        renewIngestionLeases(this.options.db, work.heldJobIds, this.owner, this.leaseUntil()).catch(() => undefined);
      },
      Math.max(1, Math.floor(this.leaseMilliseconds / 3)),
    );
    try {
      await work.run();
      this.logger?.info({ job_ids: work.heldJobIds }, 'ingestion jobs completed');
    } catch (error) {
      // Something other than one document broke: the jobs still held fail with the generic message.
      this.logger?.error({ err: error, job_ids: work.heldJobIds }, 'ingestion jobs failed');
      await this.failHeld(work.heldJobIds, jobs);
    } finally {
      clearInterval(renewal);
    }
  }

  private async failHeld(jobIds: readonly number[], jobs: readonly ClaimedJob[]): Promise<void> {
    await this.options.db.transaction().execute(async (transaction) => {
      const failed = await finishIngestionJobs(transaction, jobIds, this.owner, {
        status: 'failed',
        message: 'Failed.',
        error: INTERNAL_FAILURE,
        progressTotal: 0,
      });
      const documentIds = jobs.filter((job) => failed.has(job.id)).map((job) => job.document_id);
      await setDocumentsStatus(transaction, documentIds, 'failed', INTERNAL_FAILURE);
    });
  }

  private workerPool(): DocumentWorkerPool {
    this.pool ??= new DocumentWorkerPool({
      budget: this.options.documentProcessing?.budget ?? DEFAULT_DOCUMENT_WORKER_BUDGET,
      threads: this.concurrency.workerThreads,
      documentsPerThreadMaximum: this.concurrency.documentsPerThreadMaximum,
      batchMaximum: this.concurrency.batchMaximum,
    });
    return this.pool;
  }
}

/** Jobs claimed together, with the bytes of their documents. */
interface ClaimedBatch {
  jobs: ClaimedJob[];
  bytes: number;
  /** Claimed as a batch of small texts: on PostgreSQL it takes its turn to write, and the next is claimed meanwhile. */
  smallTexts: boolean;
}
