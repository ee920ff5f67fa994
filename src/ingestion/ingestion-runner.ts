/**
 * The ingestion runner: polls for work and runs up to INGESTION_JOBS_IN_FLIGHT jobs at a time,
 * each under a lease it renews while working. Claiming stays one atomic statement per job, so
 * several runners (and processes) never take the same job. A job: read the stored file → extract its text → chunk it with the knowledge base's
 * settings → embed the chunks in batches when the knowledge base has an embedding model → read their
 * entities when it builds an entity graph (entity-graph-stage.ts) → in one transaction replace the
 * document's chunks (vectors, graph) and mark job and document completed. Between steps it records progress, which also tells it whether the job was
 * cancelled (or taken over) meanwhile; then it stops without writing anything more. A process
 * killed mid-job leaves the job `processing` under a lease that expires, and the next runner to
 * poll starts it again from scratch: replacing the chunks in one transaction makes that safe.
 * A runner starting on the machine where that process died need not wait for the lease: it
 * releases the leases of dead local processes first (see runner-identity.ts). And a job cut short
 * as often as INGESTION_ATTEMPTS_MAX allows is failed by the claim instead of started again.
 * Extraction and chunking run on the runner's pool of long-lived worker threads
 * (document-worker-pool.ts), which stop() terminates once the jobs in hand have ended.
 */
import type { Kysely, Selectable } from 'kysely';
import { AppError, isAppError } from '../errors/app-error.js';
import type { FileStorage } from '../files/file-storage.js';
import type { Dialect } from '../store/dialect.js';
import {
  claimIngestionJob,
  expireIngestionLeases,
  finishIngestionJob,
  listIngestionLeaseOwners,
  markDocumentProcessing,
  renewIngestionLease,
  updateIngestionProgress,
  type IngestionJobRow,
} from '../store/ingestion-jobs-repository.js';
import { insertChunkEmbeddings, type VectorBackend } from '../store/chunk-vector-repository.js';
import { deleteDocumentChunks, insertChunks } from '../store/knowledge-repository.js';
import { insertChunkGraphs, removeUnmentionedEntities } from '../store/entity-graph-repository.js';
import { chunkGraphsOf, extractDocumentGraph, type GraphStageOptions } from './entity-graph-stage.js';
import type { Database, KnowledgeBasesTable } from '../store/schema.js';
import { chunkMetadata } from '../document-reading/chunking.js';
import { DEFAULT_DOCUMENT_WORKER_BUDGET, type DocumentWorkerBudget } from './document-worker-contract.js';
import { DocumentWorkerPool } from './document-worker-pool.js';
import type { ExtractionLimits } from '../document-reading/extraction.js';
import { embeddingChoiceOf, type Embedder } from '../retrieval/organization-embedder.js';
import { embedChunks } from './embedding-stage.js';
import { isDeadLocalOwner, runnerOwnerName } from './runner-identity.js';

/** How long a claimed job stays ours without a renewal (INGESTION_LEASE_MS); renewed every third of it while working. */
export const INGESTION_LEASE_MILLISECONDS = 60_000;
/** INGESTION_ATTEMPTS_MAX's default: how many starts a job gets before being cut short once more fails it. */
export const INGESTION_ATTEMPTS_MAXIMUM = 3;
/** The defaults of INGESTION_JOBS_IN_FLIGHT, INGESTION_WORKER_THREADS, INGESTION_WORKER_DOCUMENTS_MAX and INGESTION_WORKER_BATCH_MAX. */
export const INGESTION_CONCURRENCY_DEFAULTS: Readonly<IngestionConcurrency> = {
  jobsInFlightMaximum: 8,
  workerThreads: 2,
  documentsPerThreadMaximum: 500,
  batchMaximum: 16,
};
/** The steps progress counts besides one per embeddings batch: read, extract, chunk, index. */
const STEPS = 4;
const DEFAULT_EMBEDDING_BATCH_SIZE = 64;
const INTERNAL_FAILURE =
  'The document could not be processed because of an internal error. Retry the job; if it fails again, contact an administrator.';

export interface IngestionLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

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
  /** Jobs this runner works on at once (INGESTION_JOBS_IN_FLIGHT). */
  jobsInFlightMaximum: number;
  /** Worker threads of its pool (INGESTION_WORKER_THREADS). */
  workerThreads: number;
  /** Documents a thread processes before it is replaced (INGESTION_WORKER_DOCUMENTS_MAX). */
  documentsPerThreadMaximum: number;
  /** Small text documents per message to a thread (INGESTION_WORKER_BATCH_MAX). */
  batchMaximum: number;
}

/** The job was cancelled, deleted or taken over by another runner: stop quietly. */
class JobLost extends Error {}

export class IngestionRunner {
  /** Names this runner in `lease_owner`: machine, process and a random part, unique across processes and runners. */
  readonly owner = runnerOwnerName();
  private readonly leaseMilliseconds: number;
  private readonly attemptsMaximum: number;
  private readonly concurrency: IngestionConcurrency;
  /** The first poll after start takes back the jobs of dead processes of this machine; later ones need not. */
  private deadLeasesReleased = false;
  private timer: NodeJS.Timeout | undefined;
  /** The claiming pass under way, if any: at most one at a time. */
  private claiming: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** The ids of the jobs in flight: a claim never takes one of them back from this runner itself. */
  private readonly heldJobIds = new Set<number>();
  /** Started with the first job, terminated by stop(). */
  private pool: DocumentWorkerPool | undefined;
  private stopped = true;
  private logger: IngestionLogger | undefined;

  constructor(private readonly options: IngestionRunnerOptions) {
    this.leaseMilliseconds = options.leaseMilliseconds ?? INGESTION_LEASE_MILLISECONDS;
    this.attemptsMaximum = options.attemptsMaximum ?? INGESTION_ATTEMPTS_MAXIMUM;
    this.concurrency = { ...INGESTION_CONCURRENCY_DEFAULTS, ...options.concurrency };
  }

  /** Starts polling; `logger` (the server's) receives a line per job claimed, finished or failed. */
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
    return this.inFlight.size;
  }

  private schedule(delay: number): void {
    if (this.stopped || this.timer !== undefined || this.claiming !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.claiming = this.claimWhileRoom().then((idle) => {
        this.claiming = undefined;
        // Nothing waited: look again after the poll interval. Jobs that ended meanwhile left room: claim now.
        if (idle) this.schedule(this.options.pollMilliseconds);
        else if (this.inFlight.size < this.concurrency.jobsInFlightMaximum) this.schedule(0);
      });
    }, delay);
  }

  /**
   * Claims jobs until INGESTION_JOBS_IN_FLIGHT are in hand or none is waiting (then answers true).
   * A full runner claims again as soon as one of its jobs ends; an idle one after INGESTION_POLL_MS.
   */
  private async claimWhileRoom(): Promise<boolean> {
    let idle = false;
    try {
      if (!this.deadLeasesReleased) {
        await this.releaseDeadLocalLeases();
        this.deadLeasesReleased = true;
      }
      while (!this.stopped && this.inFlight.size < this.concurrency.jobsInFlightMaximum) {
        const claimed = await this.claimOne();
        if (claimed === 'none') {
          idle = true;
          break;
        }
        if (claimed !== 'failed only') this.track(claimed);
      }
    } catch (error) {
      idle = true;
      this.logger?.error({ err: error }, 'ingestion runner failed to claim or finish a job');
    }
    return idle;
  }

  private track(job: IngestionJobRow): void {
    this.heldJobIds.add(job.id);
    const running: Promise<void> = this.runClaimed(job)
      .catch((error: unknown) => this.logger?.error({ err: error, job_id: job.id }, 'ingestion runner failed to finish a job'))
      .finally(() => {
        this.inFlight.delete(running);
        this.heldJobIds.delete(job.id);
        this.schedule(0);
      });
    this.inFlight.add(running);
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

  /** Claims one job: the job, 'failed only' when the claim only failed jobs out of attempts, 'none' when nothing waits. */
  private async claimOne(): Promise<IngestionJobRow | 'failed only' | 'none'> {
    const { job, failedJobs } = await claimIngestionJob(this.options.db, this.options.dialect, {
      owner: this.owner,
      leaseExpiresAt: this.leaseUntil(),
      attemptsMaximum: this.attemptsMaximum,
      heldJobIds: [...this.heldJobIds],
    });
    for (const failed of failedJobs) {
      this.logger?.error(
        { job_id: failed.id, document_id: failed.documentId, attempts: failed.attempts },
        'ingestion job failed: the server stopped during every attempt',
      );
    }
    if (job === undefined) return failedJobs.length > 0 ? 'failed only' : 'none';
    this.logger?.info({ job_id: job.id, document_id: job.document_id, attempt: job.attempts }, 'ingestion job claimed');
    return job;
  }

  /** Runs one claimed job to its end, renewing its lease meanwhile. */
  private async runClaimed(job: IngestionJobRow): Promise<void> {
    const renewal = setInterval(
      () => {
        renewIngestionLease(this.options.db, job.id, this.owner, this.leaseUntil()).catch(() => undefined);
      },
      Math.max(1, Math.floor(this.leaseMilliseconds / 3)),
    );
    try {
      await this.work(job);
      this.logger?.info({ job_id: job.id }, 'ingestion job completed');
    } catch (error) {
      if (error instanceof JobLost) {
        this.logger?.info({ job_id: job.id }, 'ingestion job cancelled or taken over; stopped');
        return;
      }
      if (!isAppError(error)) this.logger?.error({ err: error, job_id: job.id }, 'ingestion job failed');
      const message = isAppError(error) ? error.message : INTERNAL_FAILURE;
      await this.options.db
        .transaction()
        .execute((transaction) =>
          finishIngestionJob(transaction, job, this.owner, { status: 'failed', message: 'Failed.', error: message, progressTotal: 0 }),
        );
    } finally {
      clearInterval(renewal);
    }
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

  /** Records progress (renewing the lease), or stops the job when it is no longer ours. */
  private async step(job: IngestionJobRow, current: number, total: number, message: string): Promise<void> {
    const held = await updateIngestionProgress(this.options.db, job.id, this.owner, {
      current,
      total,
      message,
      leaseExpiresAt: this.leaseUntil(),
    });
    if (!held) throw new JobLost();
  }

  private batchSize(): number {
    return this.options.embeddingBatchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE;
  }

  /** One vector per chunk, a batch per request; progress advances with each batch. */
  private embed(
    job: IngestionJobRow,
    knowledgeBase: Selectable<KnowledgeBasesTable>,
    texts: readonly string[],
    total: number,
  ): Promise<Float32Array[]> {
    return embedChunks({
      embedder: this.options.embedder,
      batchSize: this.batchSize(),
      knowledgeBase,
      // The uploader's, with no assistant: an upload is asked by a person, not through an assistant.
      userId: job.requested_by ?? knowledgeBase.owner_id,
      texts,
      progress: (start) => this.step(job, 3 + start / this.batchSize(), total, `Computing embeddings: ${start} of ${texts.length} chunks.`),
    });
  }

  private async work(job: IngestionJobRow): Promise<void> {
    const { db, storage } = this.options;
    const knowledgeBase = await db.selectFrom('knowledge_bases').selectAll().where('id', '=', job.knowledge_base_id).executeTakeFirst();
    const document = await db.selectFrom('kb_documents').selectAll().where('id', '=', job.document_id).executeTakeFirst();
    if (!knowledgeBase || knowledgeBase.deleted_at !== null || !document) throw new JobLost();
    if (!(await markDocumentProcessing(db, job, this.owner))) throw new JobLost();

    await this.step(job, 0, STEPS, 'Reading the file.');
    const bytes = await storage.readAll(knowledgeBase.id, String(document.id));
    if (bytes === undefined)
      throw new AppError('not_found', 'The stored file of this document is missing; delete the document and upload it again.');

    await this.step(job, 1, STEPS, 'Extracting the text.');
    // Off the event loop, under heap, memory and time budgets: a hostile document fails its own job only.
    let chunkingStep: Promise<void> | undefined;
    const extracted = await this.workerPool().process(
      {
        fileName: document.file_name,
        bytes,
        limits: this.options.documentProcessing?.limits ?? {},
        chunking: { chunkSize: knowledgeBase.chunk_size, chunkOverlap: knowledgeBase.chunk_overlap },
      },
      {
        onExtracted: () => {
          chunkingStep = this.step(job, 2, STEPS, 'Splitting the text into chunks.');
          // Awaited below; this only keeps a cancellation seen meanwhile from going unhandled.
          chunkingStep.catch(() => undefined);
        },
        onStopped: (description) =>
          this.logger?.error({ job_id: job.id, document_id: document.id, reason: description }, 'document worker stopped'),
      },
    );
    await (chunkingStep ?? this.step(job, 2, STEPS, 'Splitting the text into chunks.'));
    const { chunks } = extracted;
    const documentMetadata = JSON.parse(document.metadata) as Record<string, unknown>;
    const batches = embeddingChoiceOf(knowledgeBase) === undefined ? 0 : Math.ceil(chunks.length / this.batchSize());
    const total = STEPS + batches;
    const vectors = await this.embed(
      job,
      knowledgeBase,
      chunks.map((chunk) => chunk.text),
      total,
    );
    const graph =
      knowledgeBase.graph_enabled === 1 && this.options.graph !== undefined
        ? await extractDocumentGraph(this.options.graph, {
            organizationId: knowledgeBase.organization_id,
            userId: job.requested_by ?? knowledgeBase.owner_id,
            texts: chunks.map((chunk) => chunk.text),
            progress: (done) => this.step(job, total - 1, total, `Reading entities: ${done} of ${chunks.length} chunks.`),
          })
        : undefined;
    await this.step(job, total - 1, total, `Indexing ${chunks.length} chunks.`);
    await db.transaction().execute(async (transaction) => {
      await deleteDocumentChunks(transaction, document.id);
      const chunkIds = await insertChunks(
        transaction,
        document.id,
        chunks.map((chunk) => ({
          knowledge_base_id: knowledgeBase.id,
          chunk_index: chunk.chunkIndex,
          text: chunk.text,
          metadata: JSON.stringify({
            ...documentMetadata,
            ...chunkMetadata(chunk, { documentId: document.id, fileName: document.file_name, sourceUrl: document.source_url }),
          }),
        })),
      );
      await transaction
        .updateTable('kb_documents')
        .set({ page_count: extracted.pageCount ?? null })
        .where('id', '=', document.id)
        .execute();
      if (vectors.length > 0) {
        const rows = chunkIds.map((chunkId, index) => ({ chunkId, knowledgeBaseId: knowledgeBase.id, embedding: vectors[index]! }));
        await insertChunkEmbeddings(transaction, rows, this.options.vectorBackend);
      }
      if (graph !== undefined) await insertChunkGraphs(transaction, knowledgeBase.id, chunkGraphsOf(graph, chunkIds));
      // The old chunks' mentions went with them: entities only they mentioned go now, graph or not.
      await removeUnmentionedEntities(transaction, knowledgeBase.id);
      const finished = await finishIngestionJob(transaction, job, this.owner, {
        status: 'completed',
        message: `Indexed ${chunks.length} chunks.${graph === undefined ? '' : ` ${graph.summary}`}`,
        error: null,
        progressTotal: total,
      });
      // Cancelled or taken over meanwhile: the rollback leaves the chunks as they were.
      if (!finished) throw new JobLost();
    });
  }
}
