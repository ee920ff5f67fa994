/**
 * The inside of a document worker (see document-worker.ts): runs in its own thread with its own
 * heap, so parsing a hostile PDF or Word document can exhaust that heap or spin for a minute
 * without the server's event loop noticing. It lives for many documents: each message holds one
 * or more tasks, and for each in turn it extracts the document's text, splits it into chunks and
 * posts the result with, when asked, each chunk's full-text terms (or the AppError that refused the document: document reading's own refusal
 * turned into one, see reading-refusals.ts). Its parent stops it when a budget runs out and
 * retires it after a number of documents. Nothing here logs: errors travel back as data, and only
 * an AppError's safe fields cross, never a library's message, which may quote the document.
 */
import { parentPort } from 'node:worker_threads';
import { isAppError } from '../errors/app-error.js';
import { chunkSections, type Chunk } from '../document-reading/chunking.js';
import { extractDocument, requireWithinChunks } from '../document-reading/extraction.js';
import { analyseChunk, analyseFields, textAnalyzer, titleFieldOf, type AnalysedChunk } from '../store/text-analysis.js';
import type { DocumentTask, SearchAnalysisTask, WorkerReply, WorkerRequest } from './document-worker-contract.js';
import { asAppError } from './reading-refusals.js';

const port = parentPort;
if (port === null) throw new Error('document-worker-thread.ts runs only as a worker thread');

// The parent sends the next message only once every task of the last one is answered.
port.on('message', (request: WorkerRequest) => {
  void runInTurn(request.tasks);
});

async function runInTurn(tasks: readonly DocumentTask[]): Promise<void> {
  for (const task of tasks) port!.postMessage(await run(task));
}

/** Each chunk's full-text terms (text-analysis.ts), when the task asks for them: that work too stays off the event loop. */
function analysedChunks(search: SearchAnalysisTask | undefined, chunks: readonly Chunk[]): { analysed?: AnalysedChunk[] } {
  if (search === undefined) return {};
  const analyzer = textAnalyzer(search.language);
  return {
    analysed: chunks.map((chunk) => analyseFields(analyzer, chunk.text, titleFieldOf(search.title, chunk.heading ?? search.heading))),
  };
}

async function run(task: DocumentTask): Promise<WorkerReply> {
  try {
    const stored = task.search?.stored;
    if (stored !== undefined) {
      const analyzer = textAnalyzer(task.search!.language);
      return { kind: 'done', chunks: [], analysed: stored.map((chunk) => analyseChunk(analyzer, chunk.text, chunk.metadata)) };
    }
    const extracted = await extractDocument({ fileName: task.fileName, bytes: task.bytes }, task.limits);
    if (task.announceExtraction === true) port!.postMessage({ kind: 'extracted' } satisfies WorkerReply);
    const chunks = chunkSections(extracted.sections, task.chunking);
    requireWithinChunks(chunks.length, task.limits);
    return {
      kind: 'done',
      chunks,
      ...(extracted.pageCount !== undefined ? { pageCount: extracted.pageCount } : {}),
      ...analysedChunks(task.search, chunks),
    };
  } catch (caught) {
    const error = asAppError(caught);
    if (isAppError(error)) {
      return { kind: 'refused', error: { code: error.code, message: error.message, param: error.param, details: error.details } };
    }
    return { kind: 'failed', errorName: error instanceof Error ? error.name : typeof error };
  }
}
