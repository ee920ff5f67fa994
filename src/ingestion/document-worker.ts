/**
 * Extraction and chunking of one document off the event loop, on a worker thread of its own that
 * is gone once the document is done (the ingestion runner keeps a pool of long-lived threads
 * instead: document-worker-pool.ts). The same budgets hold: heap, resident memory, wall-clock time.
 */
import {
  DEFAULT_DOCUMENT_WORKER_BUDGET,
  type DocumentTask,
  type DocumentWorkerBudget,
  type DocumentWorkerHooks,
  type ProcessedDocument,
} from './document-worker-contract.js';
import { DocumentWorkerPool } from './document-worker-pool.js';

export type { DocumentTask } from './document-worker-contract.js';

/**
 * Extracts and chunks one document in a worker thread of its own under `budget`. Resolves with
 * the chunks; rejects with the extraction's own AppError, or `document_processing_failed` when a
 * budget ran out or the worker died.
 */
export async function processDocumentInWorker(
  task: DocumentTask,
  budget: DocumentWorkerBudget = DEFAULT_DOCUMENT_WORKER_BUDGET,
  hooks: DocumentWorkerHooks = {},
): Promise<ProcessedDocument> {
  const pool = new DocumentWorkerPool({ budget, threads: 1, documentsPerThreadMaximum: 1, batchMaximum: 1 });
  try {
    return await pool.process(task, hooks);
  } finally {
    await pool.close();
  }
}
