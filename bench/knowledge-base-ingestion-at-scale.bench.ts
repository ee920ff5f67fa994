/**
 * Ingestion throughput of knowledge bases at scale, on SQLite and PostgreSQL, with text from a
 * real BEIR data set (DBpedia-Entity, 5,000 abstracts). The abstracts become Markdown documents of
 * INGEST_ABSTRACTS_PER_DOCUMENT abstracts each (a `#` title, one `##` heading per abstract), stored
 * through the knowledge document storage and queued with `insertDocument` + `insertIngestionJobs`,
 * as an upload does. A real IngestionRunner then works through the queue (read file → extract →
 * chunk → [embed in batches] → replace the chunks, vectors and job state in one transaction); the
 * clock runs from `start()` to the runner's log line for the batch holding the last job. Reported:
 * MB of extracted text and chunks per second, full text only, and with embeddings computed by an
 * in-process embedder that returns `deterministicEmbedding` vectors (64-dimension hashed bag of
 * words, the test suite's fake): no network, no model. Two runs with vectors: one whose embedder
 * returns vectors hashed before the run (Merino's own cost of embedding batches and storing
 * vectors) and one that hashes the words when called (SHA-256 per word, costlier than Merino's
 * part). The corpus is ingested INGEST_PASSES times per run for steadier figures; a small untimed
 * run goes first to warm up. Query latency at scale is knowledge-base-query-latency-at-scale.bench.ts.
 *
 *   npm run bench -- bench/knowledge-base-ingestion-at-scale.bench.ts
 *   (BEIR_DIRECTORY=… INGEST_ABSTRACTS_PER_DOCUMENT=50 INGEST_PASSES=2 change the work)
 *
 * MB are 2^20 bytes of UTF-8 text. The throw-away PostgreSQL cluster runs with fsync and
 * synchronous_commit off, and SQLite runs in WAL mode with synchronous=NORMAL on a temp folder, so
 * write figures are those of a server that does not wait for the disk. Prints figures; it checks
 * only that every job completed.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LocalBlobStorage } from '../src/blobs/local-blob-storage.js';
import { chunkSections } from '../src/document-reading/chunking.js';
import { extractDocument } from '../src/document-reading/extraction.js';
import { IngestionRunner } from '../src/ingestion/ingestion-runner.js';
import { knowledgeDocumentStorage } from '../src/knowledge/knowledge-document-service.js';
import type { Embedder } from '../src/retrieval/organization-embedder.js';
import { insertIngestionJobs } from '../src/store/ingestion-jobs-repository.js';
import { insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import { insertDocument } from '../src/store/knowledge-documents-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { readJsonLines, type CorpusDocument } from './support/beir-data.js';
import { describeError, printTable, wholeNumberSetting } from './support/measure.js';
import {
  CHUNK_OVERLAP,
  CHUNK_SIZE,
  createOwner,
  embed,
  EMBEDDING_CHOICE,
  EMBEDDINGS_LABEL,
  MEGABYTE,
  seconds,
  type Owner,
} from './support/scale-knowledge-base.js';

const ABSTRACTS_PER_DOCUMENT = wholeNumberSetting('INGEST_ABSTRACTS_PER_DOCUMENT', 50, 1);
/** How many times the corpus is ingested in each measured run (as documents of other names), for steadier figures. */
const INGEST_PASSES = wholeNumberSetting('INGEST_PASSES', 2, 1);
/** Documents ingested, untimed, before the measured runs. */
const WARM_UP_DOCUMENTS = 3;
/** The longest an ingestion run may take before the benchmark gives up on it. */
const INGESTION_TIMEOUT_MILLISECONDS = 300_000;

/** The vectors of the ingested documents' chunks, computed before the runs (see `markdownDocuments`). */
const precomputedVectors = new Map<string, Float32Array>();
let precomputedMisses = 0;

/** How the runner's embedder gets its vectors: hashed when called, or looked up having been hashed beforehand. */
type EmbedderKind = 'none' | 'precomputed' | 'on call';

/** What the runner calls to embed a batch of chunks: the fake servers' vectors, in-process. */
function inProcessEmbedder(kind: Exclude<EmbedderKind, 'none'>): Embedder {
  if (kind === 'on call') return async ({ texts }) => texts.map(embed);
  return async ({ texts }) =>
    texts.map((text) => {
      const vector = precomputedVectors.get(text);
      if (vector !== undefined) return vector;
      precomputedMisses += 1;
      return embed(text);
    });
}

interface MarkdownDocument {
  fileName: string;
  bytes: Buffer;
  /** Bytes of the text extraction gives, the measure of "MB of text". */
  extractedBytes: number;
}

/** The corpus as Markdown documents, INGEST_PASSES times over. */
async function markdownDocuments(corpus: readonly CorpusDocument[]): Promise<MarkdownDocument[]> {
  const documents: MarkdownDocument[] = [];
  for (let start = 0; start < corpus.length; start += ABSTRACTS_PER_DOCUMENT) {
    const part = start / ABSTRACTS_PER_DOCUMENT + 1;
    const abstracts = corpus.slice(start, start + ABSTRACTS_PER_DOCUMENT).map((document) => `## ${document.title}\n\n${document.text}\n`);
    const fileName = `dbpedia-part-${part}.md`;
    const bytes = Buffer.from(`# DBpedia abstracts, part ${part}\n\n${abstracts.join('\n')}`, 'utf8');
    const extracted = await extractDocument({ fileName, bytes });
    // The chunks the runner will make of it, so that one run can measure Merino without the hashing.
    for (const chunk of chunkSections(extracted.sections, { chunkSize: CHUNK_SIZE, chunkOverlap: CHUNK_OVERLAP })) {
      if (!precomputedVectors.has(chunk.text)) precomputedVectors.set(chunk.text, embed(chunk.text));
    }
    documents.push({
      fileName,
      bytes,
      extractedBytes: extracted.sections.reduce((sum, section) => sum + Buffer.byteLength(section.text), 0),
    });
  }
  return Array.from({ length: INGEST_PASSES }, (_, pass) =>
    documents.map((document) => ({ ...document, fileName: document.fileName.replace(/\.md$/, `-${pass + 1}.md`) })),
  ).flat();
}

interface IngestionFigures {
  label: string;
  documents: number;
  megabytes: number;
  chunks: number;
  seconds: number;
  /** Of `seconds`, the time spent inside the in-process embedder (hashing words), not Merino's work. */
  embedderSeconds: number;
}

/**
 * Queues `documents` in a new knowledge base the way an upload does, then runs a fresh
 * IngestionRunner until every job has completed; the clock covers the runner only.
 */
async function ingestThroughRunner(
  store: Store,
  dataDirectory: string,
  owner: Owner,
  documents: readonly MarkdownDocument[],
  embedder: EmbedderKind,
  label: string,
): Promise<IngestionFigures> {
  const withEmbeddings = embedder !== 'none';
  const storage = knowledgeDocumentStorage(new LocalBlobStorage(dataDirectory));
  const knowledgeBaseId = await insertKnowledgeBase(store.db, {
    ownerId: owner.userId,
    organizationId: owner.organizationId,
    name: label,
    description: '',
    chunkSize: CHUNK_SIZE,
    chunkOverlap: CHUNK_OVERLAP,
    ...(withEmbeddings && { embedding: EMBEDDING_CHOICE }),
  });
  for (const document of documents) {
    const stored = await storage.store(knowledgeBaseId, Readable.from([document.bytes]), {
      bytesMaximum: document.bytes.length,
      extension: 'upload',
    });
    const documentId = await insertDocument(store.db, {
      knowledgeBaseId,
      fileName: document.fileName,
      contentType: 'text/markdown',
      sizeBytes: stored.sizeBytes,
      sourceUrl: null,
      status: 'pending',
      metadata: {},
    });
    await storage.rename(knowledgeBaseId, stored.storedName, String(documentId));
    await insertIngestionJobs(store.db, { knowledgeBaseId, documentIds: [documentId], requestedBy: owner.userId });
  }

  let embedderMilliseconds = 0;
  const timedEmbedder: Embedder = async (call) => {
    const begin = performance.now();
    try {
      return await inProcessEmbedder(embedder === 'none' ? 'on call' : embedder)(call);
    } finally {
      embedderMilliseconds += performance.now() - begin;
    }
  };
  const runner = new IngestionRunner({
    db: store.db,
    dialect: store.dialect,
    vectorBackend: store.vectorBackend,
    storage,
    pollMilliseconds: 50,
    ...(withEmbeddings && { embedder: timedEmbedder }),
  });
  let completed = 0;
  let finish: (() => void) | undefined;
  let fail: ((error: Error) => void) | undefined;
  const allCompleted = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // A job that fails with an AppError logs nothing, so the jobs table is watched too.
  const watcher = setInterval(() => {
    store.db
      .selectFrom('ingestion_jobs')
      .select(['id', 'error'])
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .where('status', '=', 'failed')
      .executeTakeFirst()
      .then((failed) => {
        if (failed !== undefined) fail?.(new Error(`ingestion job ${failed.id} failed: ${failed.error ?? 'no message'}`));
      })
      .catch(() => undefined);
  }, 250);
  const timeout = setTimeout(
    () =>
      fail?.(
        new Error(
          `ingestion did not finish within ${INGESTION_TIMEOUT_MILLISECONDS} ms (${completed} of ${documents.length} jobs completed)`,
        ),
      ),
    INGESTION_TIMEOUT_MILLISECONDS,
  );
  const started = performance.now();
  let elapsed: number;
  try {
    runner.start({
      // The runner ends its jobs in batches and logs each batch once, naming its jobs.
      info(details, message) {
        if (message !== 'ingestion jobs completed') return;
        completed += (details as { job_ids: readonly number[] }).job_ids.length;
        if (completed === documents.length) finish?.();
      },
      error(details, message) {
        fail?.(new Error(`${message}: ${describeError((details as { err?: unknown }).err)}`));
      },
    });
    await allCompleted;
    elapsed = seconds(started);
  } finally {
    clearInterval(watcher);
    clearTimeout(timeout);
    await runner.stop();
  }
  const { chunks } = await store.db
    .selectFrom('kb_chunks')
    .select((eb) => eb.fn.countAll<number | string>().as('chunks'))
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .executeTakeFirstOrThrow();
  return {
    label,
    documents: documents.length,
    megabytes: documents.reduce((sum, document) => sum + document.extractedBytes, 0) / MEGABYTE,
    chunks: Number(chunks),
    seconds: elapsed,
    embedderSeconds: embedderMilliseconds / 1000,
  };
}

async function runDialect(dialect: Dialect, documents: readonly MarkdownDocument[]): Promise<IngestionFigures[]> {
  const ingestion: IngestionFigures[] = [];
  const database = await createTestDatabase(dialect);
  const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 4 });
  try {
    const owner = await createOwner(store);
    const ingest = (part: readonly MarkdownDocument[], embedder: EmbedderKind, label: string) =>
      ingestThroughRunner(store, database.dataDirectory, owner, part, embedder, label);
    await ingest(documents.slice(0, WARM_UP_DOCUMENTS), 'on call', 'warm-up');
    ingestion.push(await ingest(documents, 'none', 'full text only'));
    ingestion.push(await ingest(documents, 'precomputed', 'full text + vectors, precomputed (Merino only)'));
    ingestion.push(await ingest(documents, 'on call', 'full text + vectors, hashed when called'));
  } finally {
    await store.close();
    await database.drop();
  }
  return ingestion;
}

describe('knowledge bases at scale: ingestion (BEIR DBpedia-Entity text)', () => {
  it('prints ingestion throughput through a real IngestionRunner', { timeout: 1_200_000 }, async () => {
    const documents = await markdownDocuments(readJsonLines<CorpusDocument>('corpus.jsonl'));
    const results: Array<{ dialect: Dialect; ingestion: IngestionFigures[] }> = [];
    for (const dialect of TEST_DIALECTS) results.push({ dialect, ingestion: await runDialect(dialect, documents) });

    printTable(
      `ingestion through a real IngestionRunner: ${documents.length} Markdown documents of ${ABSTRACTS_PER_DOCUMENT} BEIR abstracts each (the 5k corpus ${INGEST_PASSES}×), chunk size ${CHUNK_SIZE}/${CHUNK_OVERLAP}; vectors from the ${EMBEDDINGS_LABEL}`,
      [
        { label: 'store', width: 9 },
        { label: 'pipeline', width: 46, align: 'left' },
        { label: 'docs', width: 5 },
        { label: 'text MB', width: 8 },
        { label: 'chunks', width: 7 },
        { label: 'seconds', width: 8 },
        { label: 'MB/s', width: 6 },
        { label: 'chunks/s', width: 9 },
        { label: 'in embedder s', width: 14 },
      ],
      results.flatMap((result) =>
        result.ingestion.map((figures) => [
          result.dialect,
          figures.label,
          String(figures.documents),
          figures.megabytes.toFixed(2),
          String(figures.chunks),
          figures.seconds.toFixed(2),
          (figures.megabytes / figures.seconds).toFixed(2),
          (figures.chunks / figures.seconds).toFixed(0),
          figures.embedderSeconds.toFixed(2),
        ]),
      ),
    );
    process.stdout.write(
      '  "precomputed": the embedder hands back deterministicEmbedding vectors hashed before the run, so the row is Merino\'s own cost of embedding batches and storing vectors.\n' +
        '  "hashed when called": the embedder computes them (SHA-256 per word) inside the run; "in embedder s" is the time spent inside those calls (the garbage it leaves is collected later, outside them).\n' +
        "  A real deployment spends the embedder's time waiting for its model instead.\n",
    );
    if (precomputedMisses > 0)
      process.stdout.write(`  (${precomputedMisses} chunks had no precomputed vector and were hashed when called)\n`);

    for (const result of results)
      for (const figures of result.ingestion) expect(figures.chunks, `${result.dialect} ${figures.label}`).toBeGreaterThan(0);
  });
});
