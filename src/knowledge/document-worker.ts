/**
 * Extraction and chunking off the event loop: each document is processed in a fresh worker
 * thread (document-worker-thread.ts) under three budgets, so that no document, however hostile,
 * can stall the server's requests or end its process.
 *
 * - Heap: `resourceLimits` caps the worker's V8 heap; a document that needs more ends the worker
 *   with ERR_WORKER_OUT_OF_MEMORY, not the process.
 * - Memory outside the heap: ArrayBuffers (pdf.js inflates streams into them) are not counted by
 *   `resourceLimits`, so the parent samples the process's resident memory and stops the worker
 *   when it has grown past its budget since the worker started. One job runs at a time per
 *   runner, so that growth is the worker's.
 * - Time: the worker is stopped when the wall-clock budget runs out.
 *
 * Any of these, or a crash, fails the job with `document_processing_failed` and a message naming
 * what happened; a refusal from extraction itself (too large, unreadable) comes back unchanged.
 *
 * The worker file sits next to this module: `.js` when running from `dist/`, `.ts` under tsx or
 * vitest, where the thread first registers tsx's loader (a worker's `--import` hooks would come
 * too late for its own entry file).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../errors/app-error.js';
import type { Chunk, ChunkingOptions } from './chunking.js';
import type { ExtractionLimits } from './extraction.js';

export interface DocumentTask {
  fileName: string;
  bytes: Uint8Array;
  limits: Partial<ExtractionLimits>;
  chunking: ChunkingOptions;
}

/** What the worker posts: progress once the text is extracted, then one of the outcomes. */
export type WorkerReply =
  | { kind: 'extracted' }
  | { kind: 'done'; chunks: Chunk[]; pageCount?: number }
  | { kind: 'refused'; error: { code: ErrorCode; message: string; param: string | null; details: Record<string, unknown> | undefined } }
  | { kind: 'failed'; errorName: string };

export interface ProcessedDocument {
  chunks: Chunk[];
  pageCount?: number;
}

export interface DocumentWorkerBudget {
  /** The worker's V8 heap cap (INGESTION_WORKER_HEAP_MB). */
  heapMegabytes: number;
  /** How far the process's resident memory may grow while the worker runs (INGESTION_WORKER_RSS_MB). */
  residentMegabytes: number;
  /** Wall-clock budget (INGESTION_WORKER_TIMEOUT_MS). */
  timeoutMilliseconds: number;
}

export const DEFAULT_DOCUMENT_WORKER_BUDGET: Readonly<DocumentWorkerBudget> = {
  heapMegabytes: 512,
  residentMegabytes: 1_024,
  timeoutMilliseconds: 120_000,
};

/** How often resident memory is sampled; a sample costs microseconds. */
const MEMORY_SAMPLE_MILLISECONDS = 25;
const MEGABYTE = 1024 * 1024;

function failed(reason: 'timeout' | 'out_of_memory' | 'worker_crashed', message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('document_processing_failed', message, { param: 'file', details: { reason, ...details } });
}

function tooSlow(budget: DocumentWorkerBudget): AppError {
  const seconds = Math.round(budget.timeoutMilliseconds / 100) / 10;
  return failed(
    'timeout',
    `Reading the document took longer than ${seconds.toLocaleString('en-US')} seconds, the most one document may take, so it was stopped. Split it into smaller documents or save it again in a simpler form, then upload it again.`,
    {
      limit_ms: budget.timeoutMilliseconds,
    },
  );
}

function tooHungry(megabytes: number): AppError {
  return failed(
    'out_of_memory',
    `Reading the document needed more than ${megabytes.toLocaleString('en-US')} MB of memory, the most one document may use, so it was stopped. Split it into smaller documents or save it again in a simpler form, then upload it again.`,
    {
      limit_mb: megabytes,
    },
  );
}

function crashed(): AppError {
  return failed(
    'worker_crashed',
    'Reading the document stopped unexpectedly, so it was not indexed. Save it again (for example as PDF or .docx from its editor) and upload it again; if it fails again, contact an administrator.',
  );
}

/** Where the worker's entry file is, and how to start it, for compiled and TypeScript runs alike. */
function workerEntry(): { entry: string | URL; options: WorkerOptions } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { entry: new URL('./document-worker-thread.js', here), options: {} };
  // tsx's ESM API (the `import` condition of `tsx/esm/api`); its CommonJS twin cannot register hooks from here.
  const tsxPackage = createRequire(here).resolve('tsx/package.json');
  const tsx = pathToFileURL(path.join(path.dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
  const target = new URL('./document-worker-thread.ts', here).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(target)}); });`;
  return { entry: bootstrap, options: { eval: true, execArgv: [] } };
}

export interface DocumentWorkerHooks {
  /** Called once the text is extracted, before chunking starts. */
  onExtracted?: () => void;
  /**
   * Called when the worker stopped for a reason the document's refusal does not explain (a budget
   * ran out, a crash), with a description for operators: error names and codes only, never text.
   */
  onStopped?: (description: string) => void;
}

/**
 * Extracts and chunks one document in a worker thread under `budget`. Resolves with the chunks;
 * rejects with the extraction's own AppError, or `document_processing_failed` when a budget ran
 * out or the worker died.
 */
export function processDocumentInWorker(
  task: DocumentTask,
  budget: DocumentWorkerBudget = DEFAULT_DOCUMENT_WORKER_BUDGET,
  hooks: DocumentWorkerHooks = {},
): Promise<ProcessedDocument> {
  const { entry, options } = workerEntry();
  const worker = new Worker(entry, {
    ...options,
    resourceLimits: { maxOldGenerationSizeMb: budget.heapMegabytes },
    // The worker's output goes nowhere: libraries' warnings may quote the document.
    stdout: true,
    stderr: true,
  });
  const baseline = process.memoryUsage.rss();
  return new Promise<ProcessedDocument>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(sampler);
      void worker.terminate();
      outcome();
    };
    const stopped = (description: string, error: AppError): void =>
      settle(() => {
        hooks.onStopped?.(description);
        reject(error);
      });
    const timer = setTimeout(
      () => stopped(`wall-clock budget of ${budget.timeoutMilliseconds} ms exceeded`, tooSlow(budget)),
      budget.timeoutMilliseconds,
    );
    const sampler = setInterval(() => {
      const grown = process.memoryUsage.rss() - baseline;
      if (grown > budget.residentMegabytes * MEGABYTE)
        stopped(
          `resident memory grew by ${Math.round(grown / MEGABYTE)} MB, past ${budget.residentMegabytes} MB`,
          tooHungry(budget.residentMegabytes),
        );
    }, MEMORY_SAMPLE_MILLISECONDS);
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on('message', (reply: WorkerReply) => {
      switch (reply.kind) {
        case 'extracted':
          hooks.onExtracted?.();
          return;
        case 'done':
          settle(() => resolve({ chunks: reply.chunks, ...(reply.pageCount !== undefined ? { pageCount: reply.pageCount } : {}) }));
          return;
        case 'refused': {
          const { code, message, param, details } = reply.error;
          settle(() =>
            reject(new AppError(code, message, { ...(param !== null ? { param } : {}), ...(details !== undefined ? { details } : {}) })),
          );
          return;
        }
        case 'failed':
          stopped(`extraction threw ${reply.errorName}`, crashed());
          return;
      }
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      stopped(
        outOfMemory
          ? `heap cap of ${budget.heapMegabytes} MB reached`
          : `worker failed: ${error.name}${error.code === undefined ? '' : ` ${error.code}`}`,
        outOfMemory ? tooHungry(budget.heapMegabytes) : crashed(),
      );
    });
    worker.on('exit', (code) => stopped(`worker exited with code ${code} before answering`, crashed()));
    // A copy the worker owns: the caller's buffer may be a slice of a shared pool that must not be detached.
    const bytes = new Uint8Array(task.bytes);
    worker.postMessage({ ...task, bytes } satisfies DocumentTask, [bytes.buffer]);
  });
}
