/**
 * The cost of writing chunks and their full-text index, alone, on SQLite and PostgreSQL: what an
 * ingestion batch does on the event loop once its documents are read and analysed. The 5,000 BEIR
 * DBpedia abstracts are analysed first (untimed, as the worker threads do), then written through
 * `insertDocumentsChunks` one document a chunk, INDEX_WRITE_BATCH documents a transaction (the
 * runner's claim batch), as a runner finishing JSON documents does. A first pass into another
 * knowledge base warms the statements up and gives the index other tenants' rows. Then the
 * measured knowledge base's documents are deleted, INDEX_WRITE_BATCH a transaction, as deleting
 * documents does (the chunks' delete trigger unindexes them). Printed: chunks and postings written
 * per second, milliseconds per chunk written and per chunk deleted. Prints figures; it checks only
 * the counts.
 *
 *   npm run bench -- bench/full-text-index-writes.bench.ts
 *   (INDEX_WRITE_BATCH=64 INDEX_WRITE_DOCUMENTS=5000 change the work)
 */
import { describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { deleteDocumentsChunks, insertDocumentsChunks } from '../src/store/knowledge-repository.js';
import { insertDocuments } from '../src/store/knowledge-documents-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { analyseFields, textAnalyzer, type AnalysedChunk } from '../src/store/text-analysis.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type Dialect } from '../test/support/test-databases.js';
import { insertTestKnowledgeBase } from '../test/support/stored-documents.js';
import { readJsonLines, type CorpusDocument } from './support/beir-data.js';
import { printTable, wholeNumberSetting } from './support/measure.js';

const BATCH = wholeNumberSetting('INDEX_WRITE_BATCH', 64, 1);
const DOCUMENTS = wholeNumberSetting('INDEX_WRITE_DOCUMENTS', 5_000, 1);

interface AnalysedDocument {
  text: string;
  metadata: string;
  analysed: AnalysedChunk;
}

function analysedCorpus(): AnalysedDocument[] {
  const analyzer = textAnalyzer('english');
  return readJsonLines<CorpusDocument>('corpus.jsonl')
    .slice(0, DOCUMENTS)
    .map((document) => ({
      text: document.text,
      metadata: JSON.stringify({ title: document.title }),
      analysed: analyseFields(analyzer, document.text, document.title),
    }));
}

/** Writes every document as one chunk, BATCH documents a transaction; answers the seconds it took. */
async function writeAll(store: Store, knowledgeBaseId: number, corpus: readonly AnalysedDocument[]): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < corpus.length; start += BATCH) {
    const batch = corpus.slice(start, start + BATCH);
    await store.db.transaction().execute(async (transaction) => {
      const documentIds = await insertDocuments(
        transaction,
        batch.map((_, index) => ({
          knowledgeBaseId,
          fileName: `abstract-${start + index}.txt`,
          contentType: 'text/plain',
          sizeBytes: 0,
          sourceUrl: null,
          status: 'completed' as const,
          metadata: {},
        })),
      );
      await insertDocumentsChunks(
        transaction,
        batch.map((document, index) => ({
          documentId: documentIds[index]!,
          chunks: [{ knowledge_base_id: knowledgeBaseId, chunk_index: 0, text: document.text, metadata: document.metadata }],
          analysis: { language: 'english', chunks: [document.analysed] },
        })),
      );
    });
  }
  return (performance.now() - started) / 1000;
}

/** Deletes every chunk of the knowledge base's documents, BATCH documents a transaction; answers the seconds it took. */
async function deleteAll(store: Store, knowledgeBaseId: number): Promise<number> {
  const documents = await store.db
    .selectFrom('kb_documents')
    .select('id')
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .orderBy('id')
    .execute();
  const started = performance.now();
  for (let start = 0; start < documents.length; start += BATCH) {
    const ids = documents.slice(start, start + BATCH).map((document) => document.id);
    await store.db.transaction().execute((transaction) => deleteDocumentsChunks(transaction, ids));
  }
  return (performance.now() - started) / 1000;
}

async function measure(dialect: Dialect, corpus: readonly AnalysedDocument[]): Promise<string[]> {
  const database = await createTestDatabase(dialect);
  const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 4 });
  try {
    await bootstrapAdmin(store.db, 'bench@merino.test', 'bench-password', TEST_PASSWORD_HASH_COST);
    await writeAll(store, await insertTestKnowledgeBase(store.db, 'warm-up'), corpus);
    const knowledgeBaseId = await insertTestKnowledgeBase(store.db, 'measured');
    const seconds = await writeAll(store, knowledgeBaseId, corpus);
    const chunks = await store.db
      .selectFrom('kb_chunks')
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(chunks.count)).toBe(corpus.length);
    const postings = corpus.reduce((sum, document) => sum + document.analysed.frequencies.size, 0);
    const deleteSeconds = await deleteAll(store, knowledgeBaseId);
    const left = await store.db
      .selectFrom('kb_postings')
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(left.count)).toBe(0);
    return [
      dialect,
      String(corpus.length),
      String(postings),
      seconds.toFixed(2),
      (corpus.length / seconds).toFixed(0),
      (postings / seconds).toFixed(0),
      ((seconds * 1000) / corpus.length).toFixed(3),
      ((deleteSeconds * 1000) / corpus.length).toFixed(3),
    ];
  } finally {
    await store.close();
    await database.drop();
  }
}

describe('full-text index writes', () => {
  it('prints chunks and postings written per second on each store', async () => {
    const corpus = analysedCorpus();
    const rows: string[][] = [];
    for (const dialect of TEST_DIALECTS) rows.push(await measure(dialect, corpus));
    printTable(
      `Chunks and their full-text index written, ${BATCH} one-chunk documents a transaction (BEIR DBpedia abstracts)`,
      [
        { label: 'store', width: 9 },
        { label: 'chunks', width: 7, align: 'right' },
        { label: 'postings', width: 9, align: 'right' },
        { label: 'seconds', width: 8, align: 'right' },
        { label: 'chunks/s', width: 9, align: 'right' },
        { label: 'postings/s', width: 11, align: 'right' },
        { label: 'ms/chunk', width: 9, align: 'right' },
        { label: 'delete ms/chunk', width: 16, align: 'right' },
      ],
      rows,
    );
  });
});
