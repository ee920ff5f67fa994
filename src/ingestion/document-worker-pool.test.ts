// Proves the pool of long-lived document worker threads with real threads: small text documents share threads, chunks come back with their full-text analysis when asked (and stored chunks are analysed alone, for the reindex job), each thread is replaced after INGESTION_WORKER_DOCUMENTS_MAX documents (a message of small texts counting the share of 64 KiB its texts fill, one at most), and a document that breaks its heap cap fails alone, its thread replaced, while the other thread keeps serving the documents around it.
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import type { DocumentTask } from './document-worker-contract.js';
import { DocumentWorkerPool, type DocumentWorkerPoolOptions } from './document-worker-pool.js';
import { analyseChunk, analyseFields, textAnalyzer } from '../store/text-analysis.js';

const encoder = new TextEncoder();
const ROOMY = { heapMegabytes: 256, residentMegabytes: 4096, timeoutMilliseconds: 60_000 };

function task(fileName: string, text: string): DocumentTask {
  return { fileName, bytes: encoder.encode(text), limits: {}, chunking: { chunkSize: 100, chunkOverlap: 0 } };
}

const notes = (count: number) =>
  Array.from({ length: count }, (_, index) => task(`note-${index}.txt`, `Note ${index}: basalt cools into columns.`));
/** Plain texts of 40 KiB: small texts, each filling five eighths of the 64 KiB a small text may be. */
const longNotes = (count: number) =>
  Array.from({ length: count }, (_, index) => task(`long-note-${index}.txt`, `Note ${index}. `.padEnd(40 * 1024, 'basalt ')));
/** HTML pages, which a library (htmlparser2) reads: each counts as a whole document. */
const pages = (count: number) =>
  Array.from({ length: count }, (_, index) => task(`page-${index}.html`, `<html><body><p>Page ${index}: basalt cools.</p></body></html>`));

let pool: DocumentWorkerPool | undefined;
function makePool(options: Partial<DocumentWorkerPoolOptions>): DocumentWorkerPool {
  pool = new DocumentWorkerPool({ budget: ROOMY, threads: 1, documentsPerThreadMaximum: 100, batchMaximum: 16, ...options });
  return pool;
}

afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('DocumentWorkerPool', () => {
  it('keeps its threads for many documents, one message carrying several small texts', async () => {
    const threads = makePool({ threads: 2 });
    const results = await Promise.all(notes(30).map((note) => threads.process(note)));
    expect(results.map((result) => result.chunks[0]!.text)).toEqual(
      notes(30).map((_, index) => `Note ${index}: basalt cools into columns.`),
    );
    expect(threads.threadsStarted).toBeLessThanOrEqual(2);
  });

  it('analyses each chunk for full-text search in the thread, in the language asked, its title and heading weighted', async () => {
    const threads = makePool({ threads: 1 });
    const markdown = '# Las estrellas\n\nLas estrellas brillan en la galaxia.\n\n# Los cometas\n\nUn cometa tiene una cola de gas.';
    const processed = await threads.process({
      ...task('notas.md', markdown),
      search: { language: 'spanish', title: 'Astronomía' },
    });
    const spanish = textAnalyzer('spanish');
    expect(processed.analysed).toEqual(
      processed.chunks.map((chunk) => analyseFields(spanish, chunk.text, ['Astronomía', chunk.heading].filter(Boolean).join('\n'))),
    );
    expect(processed.analysed![0]!.frequencies.get('estrell')).toBeGreaterThan(1);

    const stored = [{ text: 'Las estrellas brillan.', metadata: '{"title":"Cielo"}' }];
    const reindexed = await threads.process({ ...task('stored-chunks.txt', ''), search: { language: 'spanish', stored } });
    expect(reindexed.chunks).toEqual([]);
    expect(reindexed.analysed).toEqual([analyseChunk(spanish, stored[0]!.text, stored[0]!.metadata)]);
  });

  it('replaces a thread after the number of documents it may process (INGESTION_WORKER_DOCUMENTS_MAX)', async () => {
    const threads = makePool({ threads: 1, documentsPerThreadMaximum: 2, batchMaximum: 1 });
    const results = await Promise.all(pages(5).map((page) => threads.process(page)));
    expect(results.map((result) => result.chunks[0]!.text)).toEqual(pages(5).map((_, index) => `Page ${index}: basalt cools.`));
    // Five documents, one a message, two per thread: the third thread took the last one.
    expect(threads.threadsStarted).toBe(3);
  });

  it('counts small texts by the share of 64 KiB they fill, a message of them one at most', async () => {
    const short = makePool({ threads: 1, documentsPerThreadMaximum: 2, batchMaximum: 1 });
    // Forty short texts, one a message: together they fill far less than 64 KiB, so one thread serves them all.
    expect(await Promise.all(notes(40).map((note) => short.process(note)))).toHaveLength(40);
    expect(short.threadsStarted).toBe(1);
    await short.close();

    const long = makePool({ threads: 1, documentsPerThreadMaximum: 2, batchMaximum: 1 });
    // Five texts of 40 KiB, one a message, five eighths each: the fourth brings the thread past two.
    expect(await Promise.all(longNotes(5).map((note) => long.process(note)))).toHaveLength(5);
    expect(long.threadsStarted).toBe(2);
    await long.close();

    const batched = makePool({ threads: 1, documentsPerThreadMaximum: 2, batchMaximum: 16 });
    // Twelve texts of 40 KiB in one message count one, not seven and a half: the thread stays.
    expect(await Promise.all(batched.processAll(longNotes(12).map((note) => ({ task: note }))))).toHaveLength(12);
    expect(batched.threadsStarted).toBe(1);
  });

  it('fails only the document past its heap cap; the other thread keeps serving, before and after', async () => {
    const threads = makePool({ threads: 2, budget: { ...ROOMY, heapMegabytes: 16 } });
    const stopped: string[] = [];
    // The notes come first: each thread takes one, the first free one the other notes, the last the hungry document.
    const beside = Promise.all(notes(6).map((note) => threads.process(note)));
    // About 8 MB of text: normalizing, splitting and chunking it holds several copies at once.
    const hungry = threads.process(task('huge.md', 'granite basalt obsidian pumice\n'.repeat(280_000)), {
      onStopped: (description) => stopped.push(description),
    });
    const error = await hungry.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'document_processing_failed', details: { reason: 'out_of_memory', limit_mb: 16 } });
    expect(stopped).toEqual(['heap cap of 16 MB reached']);
    expect(await beside).toHaveLength(6);
    // The thread that served the notes was not touched by the breach: the next document needs no new thread.
    const startedBefore = threads.threadsStarted;
    await expect(threads.process(task('after.txt', 'Pumice floats on water.'))).resolves.toMatchObject({
      chunks: [{ text: 'Pumice floats on water.' }],
    });
    expect(startedBefore).toBe(2);
    expect(threads.threadsStarted).toBe(2);
  });
});
