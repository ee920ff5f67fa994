/**
 * The contract of a document worker thread (document-worker-thread.ts): what it is given and
 * answers, the budgets it runs under, the errors a broken budget gives, and how the thread is
 * started. The pool of long-lived threads that does the work is document-worker-pool.ts.
 *
 * Any budget broken, or a crash, fails the document with `document_processing_failed` and a
 * message naming what happened; a refusal from extraction itself (too large, unreadable) comes
 * back unchanged.
 *
 * The worker file sits next to this module: `.js` when running from `dist/`, `.ts` under tsx or
 * vitest, where the thread first registers tsx's loader (a worker's `--import` hooks would come
 * too late for its own entry file).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkerOptions } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../errors/app-error.js';
import type { Chunk, ChunkingOptions } from '../document-reading/chunking.js';
import type { ExtractionLimits } from '../document-reading/extraction.js';
import type { AnalysedChunk } from '../store/text-analysis.js';

export interface DocumentTask {
  fileName: string;
  bytes: Uint8Array;
  limits: Partial<ExtractionLimits>;
  chunking: ChunkingOptions;
  /** When set, the thread also analyses each chunk for full-text search, so none of it runs on the event loop. */
  search?: SearchAnalysisTask;
  /** Whether the thread says when the text is extracted (a message of its own, sent only when the parent listens). */
  announceExtraction?: boolean;
}

export interface SearchAnalysisTask {
  /** The knowledge base's `search_language`. */
  language: string;
  /** The document's title (its metadata's `title`), part of each chunk's title field, and its metadata's heading for chunks without one. */
  title?: unknown;
  heading?: unknown;
  /** Chunks already stored, for the reindex job: only these are analysed, and the file (empty) is not read. */
  stored?: Array<{ text: string; metadata: string }>;
}

/** What the parent posts: documents the thread processes one after another, answering for each. */
export interface WorkerRequest {
  tasks: DocumentTask[];
}

/** What the worker posts for each document in turn: progress once the text is extracted, then one of the outcomes. */
export type WorkerReply =
  | { kind: 'extracted' }
  | { kind: 'done'; chunks: Chunk[]; pageCount?: number; analysed?: AnalysedChunk[] }
  | { kind: 'refused'; error: { code: ErrorCode; message: string; param: string | null; details: Record<string, unknown> | undefined } }
  | { kind: 'failed'; errorName: string };

export interface ProcessedDocument {
  chunks: Chunk[];
  pageCount?: number;
  /** Each chunk's (or each stored chunk's) full-text analysis, in order, when the task asked for it. */
  analysed?: AnalysedChunk[];
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

function failed(reason: 'timeout' | 'out_of_memory' | 'worker_crashed', message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('document_processing_failed', message, { param: 'file', details: { reason, ...details } });
}

export function tooSlow(budget: DocumentWorkerBudget): AppError {
  const seconds = Math.round(budget.timeoutMilliseconds / 100) / 10;
  return failed(
    'timeout',
    `Reading the document took longer than ${seconds.toLocaleString('en-US')} seconds, the most one document may take, so it was stopped. Split it into smaller documents or save it again in a simpler form, then upload it again.`,
    {
      limit_ms: budget.timeoutMilliseconds,
    },
  );
}

export function tooHungry(megabytes: number): AppError {
  return failed(
    'out_of_memory',
    `Reading the document needed more than ${megabytes.toLocaleString('en-US')} MB of memory, the most one document may use, so it was stopped. Split it into smaller documents or save it again in a simpler form, then upload it again.`,
    {
      limit_mb: megabytes,
    },
  );
}

export function crashed(): AppError {
  return failed(
    'worker_crashed',
    'Reading the document stopped unexpectedly, so it was not indexed. Save it again (for example as PDF or .docx from its editor) and upload it again; if it fails again, contact an administrator.',
  );
}

/** Where the worker's entry file is, and how to start it, for compiled and TypeScript runs alike. */
export function workerEntry(): { entry: string | URL; options: WorkerOptions } {
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
