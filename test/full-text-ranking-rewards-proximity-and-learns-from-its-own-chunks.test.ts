/**
 * Proves what full-text ranking adds to BM25 on both stores (src/retrieval/full-text-ranking.ts):
 * a chunk with the query's words next to each other outranks one with the same words far apart
 * (equal BM25), only within FULL_TEXT_RERANK_CANDIDATES; a title is judged by its own length, not
 * its text's (BM25F per field), with averages from the knowledge base's own chunks; and RM3 feedback brings in a chunk
 * lacking the query's words through a term of the knowledge base's own best chunks, whatever
 * another knowledge base holds; and the two settings are read and checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { rankChunks } from '../src/retrieval/chunk-ranking.js';
import { DEFAULT_FULL_TEXT_RANKING, type FullTextRanking } from '../src/retrieval/full-text-ranking.js';
import { loadSettings } from '../src/config/settings.js';
import { searchChunksFullText } from '../src/store/chunk-search-repository.js';
import { insertChunks, insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { insertCompletedDocument } from './support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';

// The same words, so the same BM25: only their order differs.
const FAR_APART = 'solar alpha bravo charlie delta echo foxtrot golf hotel india juliet panel';
const ADJACENT = 'alpha bravo charlie delta echo solar panel foxtrot golf hotel india juliet';
/** Thirty chunks on other things, so the feedback term below is in under a tenth of the chunks. */
const OTHER_TOPICS = Array.from({ length: 30 }, (_, index) => `ledger${index} invoice${index} receipt${index} audit`);
const KETTLE_CHUNKS = ['The kettle boils water for the teapot.', 'A kettle whistles; pour it into the teapot.'];
const TEAPOT_ONLY = 'Warm the porcelain teapot before brewing.';
/** A long text that never says the query's word, under a title that does. */
const LONG_TEXT = Array.from({ length: 40 }, (_, index) => `filler${index}`).join(' ');
const SHORT_MENTION = 'An old samovar stands here.';

interface TitledText {
  text: string;
  title: string;
}
describe.each(TEST_DIALECTS)('full-text ranking beyond BM25 on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let newBase: (name: string, texts: ReadonlyArray<string | TitledText>) => Promise<number>;
  let solarBase: number;
  let teaBase: number;

  const rank = (knowledgeBaseIds: number[], text: string, topK: number, fullTextRanking: FullTextRanking) =>
    rankChunks({ ...store, fullTextRanking }, knowledgeBaseIds, { mode: 'full_text', text }, topK);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    await bootstrapAdmin(store.db, 'ranking-admin@merino.test', 'ranking-admin-password', TEST_PASSWORD_HASH_COST);
    const admin = await store.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
    newBase = async (name, texts) => {
      const knowledgeBaseId = await insertKnowledgeBase(store.db, {
        ownerId: admin.id,
        organizationId: admin.organization_id,
        name,
        description: '',
        chunkSize: 1000,
        chunkOverlap: 200,
      });
      const documentId = await insertCompletedDocument(store.db, knowledgeBaseId);
      await insertChunks(
        store.db,
        documentId,
        texts.map((entry, index) => ({
          knowledge_base_id: knowledgeBaseId,
          chunk_index: index,
          text: typeof entry === 'string' ? entry : entry.text,
          metadata: typeof entry === 'string' ? '{}' : JSON.stringify({ title: entry.title }),
        })),
      );
      return knowledgeBaseId;
    };
    solarBase = await newBase('Solar', [FAR_APART, ADJACENT, ...OTHER_TOPICS]);
    teaBase = await newBase('Tea', [...KETTLE_CHUNKS, TEAPOT_ONLY, ...OTHER_TOPICS]);
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('puts the chunk with the query words adjacent above the one with them far apart, at equal BM25', async () => {
    const bm25 = await searchChunksFullText(store.db, { dialect, knowledgeBaseIds: [solarBase], query: 'solar panel', limit: 2 });
    expect(bm25.map((hit) => hit.text)).toEqual([FAR_APART, ADJACENT]);
    expect(bm25[0]?.similarity).toBe(bm25[1]?.similarity);
    const ranked = await rank([solarBase], 'solar panel', 2, { proximity: true, feedback: false, candidates: 50 });
    expect(ranked.map((hit) => hit.text)).toEqual([ADJACENT, FAR_APART]);
    for (const hit of ranked) expect(hit.similarity > 0 && hit.similarity < 1).toBe(true);
    expect(ranked[0]!.similarity).toBeGreaterThan(ranked[1]!.similarity);
  });

  it('re-ranks only FULL_TEXT_RERANK_CANDIDATES candidates (or top_k, if more)', async () => {
    const oneCandidate = await rank([solarBase], 'solar panel', 1, { proximity: true, feedback: false, candidates: 1 });
    expect(oneCandidate.map((hit) => hit.text)).toEqual([FAR_APART]);
    const twoCandidates = await rank([solarBase], 'solar panel', 1, { proximity: true, feedback: false, candidates: 2 });
    expect(twoCandidates.map((hit) => hit.text)).toEqual([ADJACENT]);
  });

  it("judges a chunk's title by the title's own length, not its text's (BM25F with a normalisation per field)", async () => {
    const titled = { text: LONG_TEXT, title: 'Samovar' };
    const base = await newBase('Samovars', [titled, SHORT_MENTION, ...OTHER_TOPICS]);
    // The postings' simple BM25F counts the title's word against the long text's length.
    const bm25 = await searchChunksFullText(store.db, { dialect, knowledgeBaseIds: [base], query: 'samovar', limit: 2 });
    expect(bm25.map((hit) => hit.text)).toEqual([SHORT_MENTION, LONG_TEXT]);
    // A one-word title that is the query says more than one mention in a short text.
    const ranked = await rank([base], 'samovar', 2, DEFAULT_FULL_TEXT_RANKING);
    expect(ranked.map((hit) => hit.text)).toEqual([LONG_TEXT, SHORT_MENTION]);
    for (const hit of ranked) expect(hit.similarity > 0 && hit.similarity < 1).toBe(true);
  });

  it("takes the field averages from the knowledge base's own chunks: another's titles change nothing", async () => {
    const base = await newBase('Kettles', [
      { text: 'The kettle boils water for tea.', title: 'Kettle' },
      { text: 'A kettle whistles when the water boils.', title: 'Whistling kettles and boiling water' },
      ...OTHER_TOPICS,
    ]);
    const before = await rank([base], 'boiling kettle', 5, DEFAULT_FULL_TEXT_RANKING);
    expect(before).toHaveLength(2);
    await newBase(
      'Long titles',
      Array.from({ length: 20 }, (_, index) => ({
        text: `kettle boils ${index}`,
        title: `a very long title about kettles that boil water in kitchens number ${index}`,
      })),
    );
    expect(await rank([base], 'boiling kettle', 5, DEFAULT_FULL_TEXT_RANKING)).toEqual(before);
  });

  it("brings in a chunk lacking the query's words through a term of the knowledge base's own best chunks", async () => {
    const withoutFeedback = await rank([teaBase], 'kettle', 5, { proximity: true, feedback: false, candidates: 50 });
    expect(withoutFeedback.map((hit) => hit.text).sort()).toEqual([...KETTLE_CHUNKS].sort());
    const withFeedback = await rank([teaBase], 'kettle', 5, { proximity: true, feedback: true, candidates: 50 });
    expect(withFeedback.map((hit) => hit.text)).toContain(TEAPOT_ONLY);
    expect(
      withFeedback
        .slice(0, 2)
        .map((hit) => hit.text)
        .sort(),
    ).toEqual([...KETTLE_CHUNKS].sort());
    for (const hit of withFeedback) expect(hit.similarity > 0 && hit.similarity < 1).toBe(true);
  });

  it("expands from the knowledge base's own chunks alone: another's content changes nothing", async () => {
    const ranking: FullTextRanking = { proximity: true, feedback: true, candidates: 50 };
    const before = await rank([teaBase], 'kettle', 5, ranking);
    // Another knowledge base full of kettles next to other words, which would expand the query otherwise.
    await newBase(
      'Orchestra',
      Array.from({ length: 20 }, (_, index) => `kettle drum timpani orchestra percussion ${index}`),
    );
    expect(await rank([teaBase], 'kettle', 5, ranking)).toEqual(before);
  });
});

describe('full-text ranking settings', () => {
  const load = (environment: Record<string, string>) => loadSettings({ DATA_DIR: '/tmp/merino-settings-test', ...environment });

  it('default to 50 candidates and no query expansion, the defaults callers without settings get too', () => {
    const settings = load({});
    expect(settings.fullTextRerankCandidates).toBe(50);
    expect(settings.fullTextQueryExpansion).toBe(false);
    expect(DEFAULT_FULL_TEXT_RANKING).toEqual({ proximity: true, feedback: false, candidates: 50 });
  });

  it('are read from the environment and checked', () => {
    const settings = load({ FULL_TEXT_RERANK_CANDIDATES: '200', FULL_TEXT_QUERY_EXPANSION: 'true' });
    expect(settings.fullTextRerankCandidates).toBe(200);
    expect(settings.fullTextQueryExpansion).toBe(true);
    expect(() => load({ FULL_TEXT_RERANK_CANDIDATES: '0' })).toThrow(/FULL_TEXT_RERANK_CANDIDATES/);
    expect(() => load({ FULL_TEXT_RERANK_CANDIDATES: '1001' })).toThrow(/FULL_TEXT_RERANK_CANDIDATES/);
  });
});
