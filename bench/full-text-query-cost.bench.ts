/**
 * What one full-text query costs the process, part by part, on the gateway benchmark's knowledge
 * base (200 chunks of about 560 characters under one title, and its question, which matches every
 * chunk: bench/support/gateway-targets.ts), written straight through `insertChunks`: the BM25 pass
 * and the whole query (`rankFullText`: BM25 for 50 candidates, then the proximity re-rank), each
 * with the posting lists and candidates' rows read from the store, and held in memory
 * (FULL_TEXT_POSTINGS_CACHE, FULL_TEXT_CHUNK_CACHE_CHARACTERS). Each part runs QUERY_COST_ROUNDS times after 300 untimed rounds; printed: wall and CPU
 * microseconds a query. Prints figures only.
 *
 *   npm run bench -- bench/full-text-query-cost.bench.ts
 *   (QUERY_COST_ROUNDS=2000 QUERY_COST_DIALECTS=sqlite,postgres change the work)
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_FULL_TEXT_RANKING, rankFullText } from '../src/retrieval/full-text-ranking.js';
import { indexStatisticsOf, queryTerms, searchKnowledgeBase, type HeldSearchData } from '../src/store/chunk-search-repository.js';
import { ChunkRowCache } from '../src/store/chunk-row-cache.js';
import { insertChunks } from '../src/store/knowledge-repository.js';
import { PostingListCache } from '../src/store/posting-list-cache.js';
import { openStore, type Store } from '../src/store/store.js';
import { insertCompletedDocument, insertTestKnowledgeBase } from '../test/support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { KNOWLEDGE_TITLE, knowledgePassages } from './support/gateway-targets.js';
import { QUESTION } from './support/load-measures.js';
import { printTable, wholeNumberSetting } from './support/measure.js';
import { createOwner } from './support/scale-knowledge-base.js';

const ROUNDS = wholeNumberSetting('QUERY_COST_ROUNDS', 2_000, 1);
const DIALECTS: readonly Dialect[] = (process.env.QUERY_COST_DIALECTS?.split(',') as Dialect[] | undefined) ?? TEST_DIALECTS;
const WARM_UP_ROUNDS = 300;
const CANDIDATES = DEFAULT_FULL_TEXT_RANKING.candidates;
/** FULL_TEXT_POSTINGS_CACHE's and FULL_TEXT_CHUNK_CACHE_CHARACTERS's defaults. */
const POSTINGS_HELD = 500_000;
const CHUNK_CHARACTERS_HELD = 4_000_000;

async function knowledgeBaseOf(store: Store): Promise<number> {
  await createOwner(store);
  const knowledgeBaseId = await insertTestKnowledgeBase(store.db, 'Cell biology');
  const documentId = await insertCompletedDocument(store.db, knowledgeBaseId);
  const metadata = JSON.stringify({ title: KNOWLEDGE_TITLE });
  await store.db.transaction().execute((transaction) =>
    insertChunks(
      transaction,
      documentId,
      knowledgePassages().map((text, index) => ({ knowledge_base_id: knowledgeBaseId, chunk_index: index, text, metadata })),
    ),
  );
  return knowledgeBaseId;
}

/** Wall and CPU microseconds a call of `run`, over ROUNDS calls after the warm-up. */
async function costOf(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  for (let round = 0; round < WARM_UP_ROUNDS; round += 1) await run();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round += 1) await run();
  const cpu = process.cpuUsage(cpuBefore);
  return { wall: ((performance.now() - started) * 1000) / ROUNDS, cpu: (cpu.user + cpu.system) / ROUNDS };
}

describe('the cost of one full-text query', () => {
  it('prints microseconds a query for each part, with posting lists and rows read and held', { timeout: 1_800_000 }, async () => {
    const rows: string[][] = [];
    for (const dialect of DIALECTS) {
      const database = await createTestDatabase(dialect, { migrated: true });
      const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 4 });
      try {
        const knowledgeBaseId = await knowledgeBaseOf(store);
        const [statistics] = await indexStatisticsOf(store.db, [knowledgeBaseId]);
        const terms = queryTerms(QUESTION, statistics!.search_language);
        const keptNone = (): HeldSearchData => ({ postingLists: new PostingListCache(0), chunkRows: new ChunkRowCache(0) });
        const kept: HeldSearchData = {
          postingLists: new PostingListCache(POSTINGS_HELD),
          chunkRows: new ChunkRowCache(CHUNK_CHARACTERS_HELD),
        };
        const query = (held: HeldSearchData) => () =>
          rankFullText(store.db, {
            knowledgeBases: [knowledgeBaseId],
            text: QUESTION,
            limit: 5,
            ranking: { ...DEFAULT_FULL_TEXT_RANKING, held },
          });
        const bm25 = (held: HeldSearchData) => () =>
          searchKnowledgeBase(store.db, { statistics: statistics!, terms, limit: CANDIDATES, held });
        const parts: Array<[string, () => Promise<unknown>]> = [
          ['BM25, read', bm25(keptNone())],
          ['BM25, held', bm25(kept)],
          ['whole query, read', query(keptNone())],
          ['whole query, held', query(kept)],
        ];
        expect((await query(kept)()).length).toBe(5);
        for (const [part, run] of parts) {
          const cost = await costOf(run);
          rows.push([dialect, part, cost.wall.toFixed(0), cost.cpu.toFixed(0)]);
        }
      } finally {
        await store.close();
        await database.drop();
      }
    }
    printTable(
      `one full-text query on 200 chunks that all match it (${CANDIDATES} BM25 candidates, top 5), ${ROUNDS} rounds`,
      [
        { label: 'store', width: 9 },
        { label: 'part', width: 24 },
        { label: 'wall µs', width: 8 },
        { label: 'CPU µs', width: 8 },
      ],
      rows,
    );
  });
});
