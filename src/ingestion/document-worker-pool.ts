/**
 * A small pool of long-lived document worker threads (document-worker-thread.ts), so that
 * extraction and chunking stay off the event loop without paying for a new thread, and a new
 * module graph in it, per document. Every budget of a single document still holds:
 *
 * - Heap: each thread runs under `resourceLimits`; a document that needs more ends its thread with
 *   ERR_WORKER_OUT_OF_MEMORY. A thread works on one document at a time, so the document in hand
 *   is the one that ran out.
 * - Time: each document has the wall-clock budget from the moment it is handed over.
 * - Memory outside the heap (pdf.js inflates into ArrayBuffers): the parent samples the process's
 *   resident memory against the value when each document started (read then, or by the sampler at
 *   most one sample interval before). When several threads are busy
 *   the growth cannot be told apart, so every thread whose document is past the budget is stopped
 *   and those documents run again ALONE; a document past the budget while nothing else runs is
 *   the one that grew it, and fails.
 *
 * A thread that breaks a budget, crashes or throws is terminated at once and replaced when next
 * needed; the other documents of its message go back to the front of the queue, so a breach fails
 * only the document that caused it. A thread is also retired after INGESTION_WORKER_DOCUMENTS_MAX
 * documents, so that what a library keeps between documents cannot grow without end (a message of
 * small texts counts the share of 64 KiB its texts fill, one at most; see messageWeight); its
 * replacement starts as it takes its last message, so the pool never waits for a thread to start. Small plain
 * text and Markdown documents (JSON texts are stored as such) travel several to a message, up to
 * INGESTION_WORKER_BATCH_MAX.
 */
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors/app-error.js';
import { fileExtension } from '../files/file-paths.js';
import {
  crashed,
  tooHungry,
  tooSlow,
  workerEntry,
  type DocumentTask,
  type DocumentWorkerBudget,
  type DocumentWorkerHooks,
  type ProcessedDocument,
  type WorkerReply,
  type WorkerRequest,
} from './document-worker-contract.js';

export interface DocumentWorkerPoolOptions {
  budget: DocumentWorkerBudget;
  /** Threads at most (INGESTION_WORKER_THREADS); they start when first needed. */
  threads: number;
  /** Documents a thread processes before it is replaced (INGESTION_WORKER_DOCUMENTS_MAX). */
  documentsPerThreadMaximum: number;
  /** Small text documents sent to a thread in one message at most (INGESTION_WORKER_BATCH_MAX). */
  batchMaximum: number;
}

/** How often resident memory is sampled while a document is in hand; a sample costs microseconds. */
const MEMORY_SAMPLE_MILLISECONDS = 25;
const MEGABYTE = 1024 * 1024;
/**
 * Which documents may share a message: text that extraction reads in one linear pass. This is no
 * limit on what a document may be, only which ones are cheap enough to travel together. An upload
 * this small is also kept in memory while it is stored, so its type is checked without reading it
 * back (knowledge-document-service.ts).
 */
export const SMALL_TEXT_BYTES_MAXIMUM = 64 * 1024;
const BATCHED_EXTENSIONS: ReadonlySet<string> = new Set(['txt', 'md', 'markdown']);

interface PendingDocument {
  task: DocumentTask;
  hooks: DocumentWorkerHooks;
  resolve: (document: ProcessedDocument) => void;
  reject: (error: unknown) => void;
  /** Set after a memory breach shared with other threads: runs only while no other document does. */
  alone: boolean;
}

interface PooledThread {
  worker: Worker;
  /** What the messages handed to this thread since it started weigh (messageWeight). */
  taken: number;
  /** The message in hand; its first document is the one being processed. */
  batch: PendingDocument[];
  /** Resident memory when the document in hand started. */
  baseline: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A small text document: read by our own linear code in one pass, so it may travel with others to
 * a thread, and be claimed with many others (ingestion-runner.ts): none of them can hold the rest long.
 */
export function isSmallTextDocument(fileName: string, sizeBytes: number): boolean {
  return sizeBytes <= SMALL_TEXT_BYTES_MAXIMUM && BATCHED_EXTENSIONS.has(fileExtension(fileName));
}

/**
 * What a message counts towards its thread's replacement. A document a library reads counts one. A
 * message of small texts counts the share of SMALL_TEXT_BYTES_MAXIMUM its texts fill, one at
 * most: no library reads them, the thread's own state (the stemmer's cache) is bounded, and
 * replacing a thread costs far more than they do (0.45 to 0.5 s of CPU a thread in a built server,
 * measured: its start, its code compiled again and its stems cached again), so a thread fed short
 * texts lives long.
 */
function messageWeight(batch: readonly PendingDocument[]): number {
  let smallTextBytes = 0;
  for (const { task } of batch) {
    if (task.search?.stored !== undefined || !isSmallTextDocument(task.fileName, task.bytes.byteLength)) return 1;
    smallTextBytes += task.bytes.byteLength;
  }
  return Math.min(1, smallTextBytes / SMALL_TEXT_BYTES_MAXIMUM);
}

function batchable(document: PendingDocument): boolean {
  return !document.alone && isSmallTextDocument(document.task.fileName, document.task.bytes.byteLength);
}

export class DocumentWorkerPool {
  private readonly threads = new Set<PooledThread>();
  private readonly queue: PendingDocument[] = [];
  private sampler: NodeJS.Timeout | undefined;
  private started = 0;
  /** The last reading of resident memory and when it was taken (performance.now()). */
  private resident = { bytes: 0, at: Number.NEGATIVE_INFINITY };

  constructor(private readonly options: DocumentWorkerPoolOptions) {}

  /**
   * Extracts and chunks one document on a pool thread. Resolves with the chunks; rejects with the
   * extraction's own AppError, or `document_processing_failed` when a budget ran out or the thread
   * died.
   */
  process(task: DocumentTask, hooks: DocumentWorkerHooks = {}): Promise<ProcessedDocument> {
    return this.processAll([{ task, hooks }])[0]!;
  }

  /**
   * Extracts and chunks several documents, each as `process` does; all are queued before any is
   * handed over, so small ones travel together from the first message. One promise per document,
   * in order: a document that fails rejects its own promise only.
   */
  processAll(documents: ReadonlyArray<{ task: DocumentTask; hooks?: DocumentWorkerHooks }>): Promise<ProcessedDocument>[] {
    const outcomes = documents.map(
      ({ task, hooks = {} }) =>
        new Promise<ProcessedDocument>((resolve, reject) => {
          this.queue.push({ task, hooks, resolve, reject, alone: false });
        }),
    );
    this.dispatch();
    return outcomes;
  }

  /** Threads started since the pool was made, replacements included (for operators and tests). */
  get threadsStarted(): number {
    return this.started;
  }

  /** Terminates every thread; documents still waiting fail. Later documents start new threads. */
  async close(): Promise<void> {
    const waiting = this.queue.splice(0);
    for (const document of waiting) document.reject(new Error('the document worker pool was closed'));
    const threads = [...this.threads];
    for (const thread of threads) {
      for (const document of thread.batch) document.reject(new Error('the document worker pool was closed'));
      thread.batch = [];
    }
    await Promise.all(threads.map((thread) => this.retire(thread)));
    this.updateSampler();
  }

  /** Hands queued documents to idle threads, starting threads up to the pool's size. */
  private dispatch(): void {
    while (this.queue.length > 0 && this.mayStartAnother()) {
      const thread = this.idleThread();
      if (thread === undefined) break;
      thread.batch = this.takeBatch();
      this.send(thread);
    }
    this.updateSampler();
  }

  /** A document that must run alone waits for the others to end, and nothing starts beside it. */
  private mayStartAnother(): boolean {
    const busy = [...this.threads].filter((thread) => thread.batch.length > 0);
    if (busy.some((thread) => thread.batch[0]!.alone)) return false;
    return !(this.queue[0]!.alone && busy.length > 0);
  }

  private idleThread(): PooledThread | undefined {
    for (const thread of this.threads) if (thread.batch.length === 0) return thread;
    if (this.threads.size >= this.options.threads) return undefined;
    return this.startThread();
  }

  /** The head of the queue, with the small text documents after it when it is one too. */
  private takeBatch(): PendingDocument[] {
    // An even share of what waits, so that every thread of the pool gets some of a batch.
    const share = Math.ceil(this.queue.length / this.options.threads);
    const head = this.queue.shift()!;
    const batch = [head];
    const room = Math.min(this.options.batchMaximum, share);
    if (!batchable(head)) return batch;
    for (let index = 0; index < this.queue.length && batch.length < room;) {
      if (batchable(this.queue[index]!)) batch.push(...this.queue.splice(index, 1));
      else index += 1;
    }
    return batch;
  }

  private startThread(): PooledThread {
    const { entry, options } = workerEntry();
    const worker = new Worker(entry, {
      ...options,
      resourceLimits: { maxOldGenerationSizeMb: this.options.budget.heapMegabytes },
      // The thread's output goes nowhere: libraries' warnings may quote the document.
      stdout: true,
      stderr: true,
    });
    // An idle pool does not keep the process alive; a document in hand has its timer, which does.
    worker.unref();
    worker.stdout.resume();
    worker.stderr.resume();
    const thread: PooledThread = { worker, taken: 0, batch: [], baseline: 0, timer: undefined };
    this.threads.add(thread);
    this.started += 1;
    worker.on('message', (reply: WorkerReply) => this.answer(thread, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
        this.breach(thread, `heap cap of ${this.options.budget.heapMegabytes} MB reached`, tooHungry(this.options.budget.heapMegabytes));
      else this.breach(thread, `worker failed: ${error.name}${error.code === undefined ? '' : ` ${error.code}`}`, crashed());
    });
    worker.on('exit', (code) => {
      if (this.threads.has(thread)) this.breach(thread, `worker exited with code ${code} before answering`, crashed());
    });
    return thread;
  }

  private send(thread: PooledThread): void {
    thread.taken += messageWeight(thread.batch);
    // Its last message: its replacement starts now and loads its modules while this one works,
    // so retiring a thread never leaves the queue waiting for a new one to start.
    if (thread.taken >= this.options.documentsPerThreadMaximum) this.startThread();
    // Copies the thread owns: a caller's buffer may be a slice of a shared pool that must not be detached.
    const tasks = thread.batch.map((document) => ({
      ...document.task,
      bytes: new Uint8Array(document.task.bytes),
      announceExtraction: document.hooks.onExtracted !== undefined,
    }));
    thread.worker.postMessage(
      { tasks } satisfies WorkerRequest,
      tasks.map((task) => task.bytes.buffer),
    );
    this.startClock(thread);
  }

  /**
   * Starts the budgets of the document now in hand: its wall-clock time and, at the start of a
   * message, its memory baseline. The small texts after the first of a message keep the message's
   * baseline: their growth is counted from an earlier point, which only makes the budget stricter,
   * and reading resident memory is a system call per document saved.
   */
  private startClock(thread: PooledThread, newBaseline = true): void {
    clearTimeout(thread.timer);
    if (newBaseline) thread.baseline = this.recentResident();
    const { timeoutMilliseconds } = this.options.budget;
    thread.timer = setTimeout(
      () => this.breach(thread, `wall-clock budget of ${timeoutMilliseconds} ms exceeded`, tooSlow(this.options.budget)),
      timeoutMilliseconds,
    );
  }

  private answer(thread: PooledThread, reply: WorkerReply): void {
    const document = thread.batch[0];
    if (document === undefined) return;
    switch (reply.kind) {
      case 'extracted':
        document.hooks.onExtracted?.();
        return;
      case 'done':
        this.finish(thread, () =>
          document.resolve({
            chunks: reply.chunks,
            ...(reply.pageCount !== undefined ? { pageCount: reply.pageCount } : {}),
            ...(reply.analysed !== undefined ? { analysed: reply.analysed } : {}),
          }),
        );
        return;
      case 'refused': {
        const { code, message, param, details } = reply.error;
        const error = new AppError(code, message, { ...(param !== null ? { param } : {}), ...(details !== undefined ? { details } : {}) });
        this.finish(thread, () => document.reject(error));
        return;
      }
      case 'failed':
        this.breach(thread, `extraction threw ${reply.errorName}`, crashed());
        return;
    }
  }

  /** The document in hand has its outcome: the next of the message starts, or the thread is free (or retired). */
  private finish(thread: PooledThread, outcome: () => void): void {
    thread.batch.shift();
    outcome();
    if (thread.batch.length > 0) {
      this.startClock(thread, false);
      return;
    }
    clearTimeout(thread.timer);
    thread.timer = undefined;
    if (thread.taken >= this.options.documentsPerThreadMaximum) void this.retire(thread);
    this.dispatch();
  }

  /** The document in hand broke a budget or its thread died: it fails, the thread goes, the rest wait for another. */
  private breach(thread: PooledThread, description: string, error: AppError): void {
    if (!this.threads.has(thread)) return;
    const [document, ...rest] = thread.batch;
    thread.batch = [];
    void this.retire(thread);
    this.queue.unshift(...rest);
    if (document !== undefined) {
      document.hooks.onStopped?.(description);
      document.reject(error);
    }
    this.dispatch();
  }

  /** Stops the thread and forgets it; its own exit is then no breach. */
  private async retire(thread: PooledThread): Promise<void> {
    this.threads.delete(thread);
    clearTimeout(thread.timer);
    thread.timer = undefined;
    await thread.worker.terminate();
  }

  private updateSampler(): void {
    const busy = [...this.threads].some((thread) => thread.batch.length > 0);
    if (busy && this.sampler === undefined) this.sampler = setInterval(() => this.sampleMemory(), MEMORY_SAMPLE_MILLISECONDS);
    else if (!busy && this.sampler !== undefined) {
      clearInterval(this.sampler);
      this.sampler = undefined;
    }
  }

  /**
   * Resident memory now, or as the sampler read it at most one sample interval ago: reading it
   * costs a system call of 0.1 to 0.2 ms in a busy server, and a message of small texts needs a
   * baseline every few milliseconds. A reading that old makes a budget stricter by what was
   * allocated since, or looser by what was freed in those few milliseconds.
   */
  private recentResident(): number {
    const now = performance.now();
    if (now - this.resident.at > MEMORY_SAMPLE_MILLISECONDS) this.resident = { bytes: process.memoryUsage.rss(), at: now };
    return this.resident.bytes;
  }

  /** Stops documents whose resident-memory growth is past the budget (see the header for how several are told apart). */
  private sampleMemory(): void {
    const resident = process.memoryUsage.rss();
    this.resident = { bytes: resident, at: performance.now() };
    const limit = this.options.budget.residentMegabytes * MEGABYTE;
    const busy = [...this.threads].filter((thread) => thread.batch.length > 0);
    const suspects = busy.filter((thread) => resident - thread.baseline > limit);
    if (suspects.length === 0) return;
    if (busy.length === 1) {
      const grown = Math.round((resident - suspects[0]!.baseline) / MEGABYTE);
      this.breach(
        suspects[0]!,
        `resident memory grew by ${grown} MB, past ${this.options.budget.residentMegabytes} MB`,
        tooHungry(this.options.budget.residentMegabytes),
      );
      return;
    }
    const again: PendingDocument[] = [];
    for (const thread of suspects) {
      const [document, ...rest] = thread.batch;
      thread.batch = [];
      void this.retire(thread);
      again.push({ ...document!, alone: true }, ...rest);
    }
    this.queue.unshift(...again);
    this.dispatch();
  }
}
