/**
 * The work on a batch of ingestion jobs claimed together (ingestion-runner.ts claims them): read
 * the knowledge bases and documents once (with the texts of small JSON documents, kept in the
 * store) → mark the documents processing → read the other documents' stored files → extract and chunk them, and analyse the chunks for full-text search, on the worker pool (small
 * text documents travel several to a message; every budget still holds per document) → embed and read entities per document where the
 * knowledge base asks for it → in one transaction end the jobs still held and replace their
 * documents' chunks (vectors, graph). Progress is recorded for the whole batch in one statement a
 * step, and each step also tells which jobs were cancelled (or taken over) meanwhile: those drop
 * out of the batch and nothing more is written for them. A document that fails (a refusal, a
 * broken budget, a missing file) fails its own job only; the rest of the batch goes on.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely, Selectable } from 'kysely';
import { AppError, isAppError } from '../errors/app-error.js';
import type { FileStorage } from '../files/file-storage.js';
import { finishIngestionJob, finishIngestionJobs, updateIngestionProgress, type JobOutcome } from '../store/ingestion-jobs-repository.js';
import type { ClaimedJob } from '../store/ingestion-job-claims-repository.js';
import { findDocumentTexts } from '../store/document-texts-repository.js';
import { markDocumentsProcessing, type KnowledgeDocumentRow } from '../store/knowledge-documents-repository.js';
import { insertChunkEmbeddings, type VectorBackend } from '../store/chunk-vector-repository.js';
import { deleteDocumentsChunks, insertDocumentsChunks } from '../store/knowledge-repository.js';
import { insertChunkGraphs, removeUnmentionedEntities } from '../store/entity-graph-repository.js';
import { chunkGraphsOf, extractDocumentGraph, type DocumentGraph, type GraphStageOptions } from './entity-graph-stage.js';
import type { Database, KnowledgeBasesTable } from '../store/schema.js';
import { chunkMetadata } from '../document-reading/chunking.js';
import type { DocumentWorkerPool } from './document-worker-pool.js';
import type { ProcessedDocument } from './document-worker-contract.js';
import type { ExtractionLimits } from '../document-reading/extraction.js';
import { embeddingChoiceOf, type Embedder } from '../retrieval/organization-embedder.js';
import { embedChunks } from './embedding-stage.js';

/** The steps progress counts besides one per embeddings batch: read, extract, chunk, index. */
const STEPS = 4;
export const INTERNAL_FAILURE =
  'The document could not be processed because of an internal error. Retry the job; if it fails again, contact an administrator.';

export interface IngestionLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface BatchWorkOptions {
  db: Kysely<Database>;
  vectorBackend: VectorBackend;
  storage: FileStorage;
  /** The runner, as written in `lease_owner`. */
  owner: string;
  leaseUntil: () => string;
  pool: () => DocumentWorkerPool;
  embedder?: Embedder;
  embeddingBatchSize: number;
  limits: Partial<ExtractionLimits>;
  graph?: GraphStageOptions;
  logger?: IngestionLogger;
  /**
   * Waits for this batch's turn to write (the runner's batches of small texts write one at a time,
   * and the next is claimed while one writes); answers what ends the turn.
   */
  writeTurn?: (jobs: number) => Promise<() => void>;
}

type KnowledgeBase = Selectable<KnowledgeBasesTable>;
/** The columns of a document the batch uses (each row of `select *` cost about 13 µs to build: 21 columns). */
const DOCUMENT_COLUMNS = ['id', 'file_name', 'metadata', 'page_count', 'source_url'] as const;
type BatchDocument = Pick<KnowledgeDocumentRow, (typeof DOCUMENT_COLUMNS)[number]>;

/** One job of the batch with what it has gathered so far. */
interface Task {
  job: ClaimedJob;
  knowledgeBase: KnowledgeBase;
  document: BatchDocument;
  /** The document's metadata, parsed. */
  metadata: Record<string, unknown>;
  bytes?: Buffer;
  extracted?: ProcessedDocument;
  vectors?: Float32Array[];
  graph?: DocumentGraph;
  total: number;
}

/** The job was cancelled, deleted or taken over by another runner: stop quietly. */
class JobLost extends Error {}

/** Runs a claimed batch to its end; jobs still held when something unexpected breaks are left to the caller to fail. */
export class IngestionBatchWork {
  private tasks: Task[] = [];
  /** The texts of the batch's documents kept in the store, by document id; the others are files. */
  private storedTexts = new Map<number, string>();

  constructor(
    private readonly options: BatchWorkOptions,
    private readonly jobs: readonly ClaimedJob[],
  ) {}

  /** The ids of the jobs this batch still holds. */
  get heldJobIds(): number[] {
    return this.tasks.map((task) => task.job.id);
  }

  async run(): Promise<void> {
    await this.load();
    const marked = await markDocumentsProcessing(
      this.options.db,
      this.tasks.map((task) => task.job),
      this.options.owner,
    );
    this.keep((task) => marked.has(task.document.id));
    // better-sqlite3 runs each statement synchronously, so the claim, the reads and the marks above
    // ran in one turn of the event loop: for a batch of hundreds of small texts, tens of ms.
    await yieldToEventLoop();
    // A text kept in the store is in hand already: only the documents with a file have one to read.
    await this.step(this.withFiles(), () => ({ current: 0, total: STEPS, message: 'Reading the file.' }));
    await this.each(this.tasks, (task) => this.read(task));
    // A small text kept in the store is chunked, analysed and written in milliseconds: its job goes
    // from its claim straight to its end, without the steps between (each a write of its row, on
    // PostgreSQL a new version of it, for a state no one would see). The indexing step alone took 6
    // to 13 ms of each batch of 256 JSON documents on PostgreSQL, batches that follow one another.
    await this.step(this.withFiles(), () => ({ current: 1, total: STEPS, message: 'Extracting the text.' }));
    await this.extract();
    await this.each(this.tasks, (task) => this.enrich(task));
    await this.step(this.withFiles(), (task) => ({
      current: task.total - 1,
      total: task.total,
      message: `Indexing ${task.extracted!.chunks.length} chunks.`,
    }));
    await yieldToEventLoop();
    await this.write();
  }

  /** Reads the knowledge bases and documents of the batch at once; a job whose either is gone is lost. */
  private async load(): Promise<void> {
    const { db } = this.options;
    if (this.jobs.length === 0) return;
    const knowledgeBases = await db
      .selectFrom('knowledge_bases')
      .selectAll()
      .where('id', 'in', [...new Set(this.jobs.map((job) => job.knowledge_base_id))])
      .execute();
    const documents = await db
      .selectFrom('kb_documents')
      .select(DOCUMENT_COLUMNS)
      .where(
        'id',
        'in',
        this.jobs.map((job) => job.document_id),
      )
      .execute();
    // Small JSON texts are kept in the store: read with their rows, one statement for the batch, no file each.
    this.storedTexts = await findDocumentTexts(
      db,
      documents.map((row) => row.id),
    );
    const knowledgeBaseOf = new Map(knowledgeBases.map((row) => [row.id, row]));
    const documentOf = new Map(documents.map((row) => [row.id, row]));
    for (const job of this.jobs) {
      const knowledgeBase = knowledgeBaseOf.get(job.knowledge_base_id);
      const document = documentOf.get(job.document_id);
      if (knowledgeBase === undefined || knowledgeBase.deleted_at !== null || document === undefined) this.lost(job);
      else
        this.tasks.push({ job, knowledgeBase, document, metadata: JSON.parse(document.metadata) as Record<string, unknown>, total: STEPS });
    }
  }

  /** Keeps the tasks that pass; the others' jobs are no longer this runner's. */
  private keep(held: (task: Task) => boolean): void {
    const [kept, lost] = [this.tasks.filter(held), this.tasks.filter((task) => !held(task))];
    for (const task of lost) this.lost(task.job);
    this.tasks = kept;
  }

  private lost(job: ClaimedJob): void {
    this.options.logger?.info({ job_id: job.id }, 'ingestion job cancelled or taken over; stopped');
  }

  /** The tasks whose documents are files, not texts kept in the store. */
  private withFiles(): Task[] {
    return this.tasks.filter((task) => !this.storedTexts.has(task.document.id));
  }

  /** Records progress for `tasks`, one statement per distinct step (none for no tasks); the jobs no longer held drop out. */
  private async step(
    tasks: readonly Task[],
    progressOf: (task: Task) => { current: number; total: number; message: string },
  ): Promise<void> {
    const groups = new Map<string, { progress: ReturnType<typeof progressOf>; jobIds: number[] }>();
    for (const task of tasks) {
      const progress = progressOf(task);
      const key = JSON.stringify(progress);
      const group = groups.get(key) ?? { progress, jobIds: [] };
      group.jobIds.push(task.job.id);
      groups.set(key, group);
    }
    const stepped = new Set(tasks.map((task) => task.job.id));
    const held = new Set<number>();
    for (const { progress, jobIds } of groups.values()) {
      const still = await updateIngestionProgress(this.options.db, jobIds, this.options.owner, {
        ...progress,
        leaseExpiresAt: this.options.leaseUntil(),
      });
      for (const id of still) held.add(id);
    }
    this.keep((task) => !stepped.has(task.job.id) || held.has(task.job.id));
  }

  /**
   * Runs `work` on every task at once; a task whose work fails has its job failed (or dropped when
   * it was lost) and leaves the batch, the others go on.
   */
  private async each(tasks: readonly Task[], work: (task: Task) => Promise<void>): Promise<void> {
    const outcomes = await Promise.allSettled(tasks.map((task) => work(task)));
    const failed = new Map<Task, unknown>();
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected') failed.set(tasks[index]!, outcome.reason);
    });
    if (failed.size === 0) return;
    this.tasks = this.tasks.filter((task) => !failed.has(task));
    for (const [task, error] of failed) await this.fail(task, error);
  }

  /** Fails one job with the error's message (an unexpected error with the generic one, logged); a lost job is left alone. */
  private async fail(task: Task, error: unknown): Promise<void> {
    if (error instanceof JobLost) return;
    if (!isAppError(error)) this.options.logger?.error({ err: error, job_id: task.job.id }, 'ingestion job failed');
    const outcome: JobOutcome = {
      status: 'failed',
      message: 'Failed.',
      error: isAppError(error) ? error.message : INTERNAL_FAILURE,
      progressTotal: 0,
    };
    await this.options.db.transaction().execute((transaction) => finishIngestionJob(transaction, task.job, this.options.owner, outcome));
  }

  private async read(task: Task): Promise<void> {
    const storedText = this.storedTexts.get(task.document.id);
    const bytes =
      storedText === undefined
        ? await this.options.storage.readAll(task.knowledgeBase.id, String(task.document.id))
        : Buffer.from(storedText, 'utf8');
    if (bytes === undefined)
      throw new AppError('not_found', 'The stored file of this document is missing; delete the document and upload it again.');
    task.bytes = bytes;
  }

  /** Off the event loop, under heap, memory and time budgets per document: a hostile document fails its own job only. */
  private async extract(): Promise<void> {
    const tasks = [...this.tasks];
    const outcomes = this.options.pool().processAll(
      tasks.map((task) => ({
        task: {
          fileName: task.document.file_name,
          bytes: task.bytes!,
          limits: this.options.limits,
          chunking: { chunkSize: task.knowledgeBase.chunk_size, chunkOverlap: task.knowledgeBase.chunk_overlap },
          // The thread analyses each chunk for full-text search too, so none of it runs on the event loop.
          search: { language: task.knowledgeBase.search_language, title: task.metadata.title, heading: task.metadata.heading },
        },
        hooks: {
          onStopped: (description: string) =>
            this.options.logger?.error(
              { job_id: task.job.id, document_id: task.document.id, reason: description },
              'document worker stopped',
            ),
        },
      })),
    );
    await this.each(tasks, async (task) => {
      task.extracted = await outcomes[tasks.indexOf(task)]!;
      // The bytes are not needed past extraction; a long batch need not hold them.
      task.bytes = undefined;
    });
  }

  /** Embeds the chunks and reads their entities, for the documents whose knowledge base asks for either. */
  private async enrich(task: Task): Promise<void> {
    const { knowledgeBase, job } = task;
    const chunks = task.extracted!.chunks;
    const batchSize = this.options.embeddingBatchSize;
    const batches = embeddingChoiceOf(knowledgeBase) === undefined ? 0 : Math.ceil(chunks.length / batchSize);
    task.total = STEPS + batches;
    const texts = chunks.map((chunk) => chunk.text);
    const progress = async (current: number, message: string): Promise<void> => {
      await this.step([task], () => ({ current, total: task.total, message }));
      if (!this.tasks.includes(task)) throw new JobLost();
    };
    task.vectors = await embedChunks({
      embedder: this.options.embedder,
      batchSize,
      knowledgeBase,
      // The uploader's, with no assistant: an upload is asked by a person, not through an assistant.
      userId: job.requested_by ?? knowledgeBase.owner_id,
      texts,
      progress: (start) => progress(3 + start / batchSize, `Computing embeddings: ${start} of ${texts.length} chunks.`),
    });
    if (knowledgeBase.graph_enabled === 1 && this.options.graph !== undefined) {
      task.graph = await extractDocumentGraph(this.options.graph, {
        organizationId: knowledgeBase.organization_id,
        userId: job.requested_by ?? knowledgeBase.owner_id,
        texts,
        progress: (done) => progress(task.total - 1, `Reading entities: ${done} of ${chunks.length} chunks.`),
      });
    }
  }

  /** Ends the jobs still held and replaces their documents' chunks, all in one transaction. */
  private async write(): Promise<void> {
    if (this.tasks.length === 0) return;
    const endTurn = (await this.options.writeTurn?.(this.tasks.length)) ?? (() => undefined);
    try {
      await this.writeHeld();
    } finally {
      endTurn();
    }
  }

  private async writeHeld(): Promise<void> {
    await this.options.db.transaction().execute(async (transaction) => {
      const held = new Set<number>();
      for (const [outcome, jobIds] of this.outcomeGroups()) {
        for (const id of await finishIngestionJobs(transaction, jobIds, this.options.owner, outcome)) held.add(id);
      }
      // Cancelled or taken over meanwhile: nothing more is written for those.
      this.keep((task) => held.has(task.job.id));
      // Marks the documents completed too.
      const replaced = await this.replaceChunks(transaction);
      // The old chunks' mentions went with them: entities only they mentioned go now, graph or not.
      // New documents had no chunks, so no mention went and nothing can have been left unmentioned:
      // on PostgreSQL that statement was a round trip of 3 to 5 ms a batch inside the write.
      if (replaced > 0)
        for (const knowledgeBaseId of new Set(this.tasks.map((task) => task.knowledgeBase.id)))
          await removeUnmentionedEntities(transaction, knowledgeBaseId);
    });
  }

  /** The completed outcomes of the tasks, with the jobs each applies to: one statement ends each group. */
  private outcomeGroups(): Array<[JobOutcome, number[]]> {
    const groups = new Map<string, [JobOutcome, number[]]>();
    for (const task of this.tasks) {
      const summary = task.graph === undefined ? '' : ` ${task.graph.summary}`;
      const outcome: JobOutcome = {
        status: 'completed',
        message: `Indexed ${task.extracted!.chunks.length} chunks.${summary}`,
        error: null,
        progressTotal: task.total,
      };
      const key = JSON.stringify(outcome);
      const group = groups.get(key) ?? [outcome, []];
      group[1].push(task.job.id);
      groups.set(key, group);
    }
    return [...groups.values()];
  }

  /**
   * Replaces the chunks of every task's document (one delete, and the inserts shared by the whole
   * batch) and marks the documents completed; answers how many old chunks went.
   */
  private async replaceChunks(transaction: Kysely<Database>): Promise<number> {
    const removed = await deleteDocumentsChunks(
      transaction,
      this.tasks.map((task) => task.document.id),
    );
    const chunkIds = await insertDocumentsChunks(
      transaction,
      this.tasks.map(({ document, knowledgeBase, extracted, metadata: documentMetadata }) => {
        return {
          documentId: document.id,
          analysis: { language: knowledgeBase.search_language, chunks: extracted!.analysed },
          chunks: extracted!.chunks.map((chunk) => ({
            knowledge_base_id: knowledgeBase.id,
            chunk_index: chunk.chunkIndex,
            text: chunk.text,
            metadata: JSON.stringify({
              ...documentMetadata,
              ...chunkMetadata(chunk, { documentId: document.id, fileName: document.file_name, sourceUrl: document.source_url }),
            }),
          })),
        };
      }),
      { markCompleted: true },
    );
    for (const [index, task] of this.tasks.entries()) await this.completeDocument(transaction, task, chunkIds[index]!);
    return removed;
  }

  /** What a document has besides its chunks: its page count, its chunks' vectors and graph. */
  private async completeDocument(transaction: Kysely<Database>, task: Task, chunkIds: readonly number[]): Promise<void> {
    const { document, knowledgeBase, extracted } = task;
    const pageCount = extracted!.pageCount ?? null;
    if (pageCount !== document.page_count)
      await transaction.updateTable('kb_documents').set({ page_count: pageCount }).where('id', '=', document.id).execute();
    if (task.vectors !== undefined && task.vectors.length > 0) {
      const rows = chunkIds.map((chunkId, index) => ({ chunkId, knowledgeBaseId: knowledgeBase.id, embedding: task.vectors![index]! }));
      await insertChunkEmbeddings(transaction, rows, this.options.vectorBackend);
    }
    if (task.graph !== undefined) await insertChunkGraphs(transaction, knowledgeBase.id, chunkGraphsOf(task.graph, chunkIds));
  }
}
