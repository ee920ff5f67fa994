/**
 * Proves full-text retrieval over knowledge-base chunks on SQLite (FTS5, BM25) and PostgreSQL
 * (tsvector): relevant chunks rank first, only the asked knowledge bases are searched, similarity
 * stays in [0, 1), stemming matches word forms, full-text syntax in a query is inert, and the index
 * follows deleted chunks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { queryTerms, QUERY_TERMS_MAXIMUM, searchChunksFullText } from '../src/store/chunk-search-repository.js';
import { deleteDocumentChunks, insertChunks, insertKnowledgeBase } from '../src/store/knowledge-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { insertCompletedDocument } from './support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PASSAGES = [
  'Mitochondria are the powerhouse of the cell and produce energy through respiration.',
  'Photosynthesis converts light energy into chemical energy stored in glucose.',
  'The French Revolution began in 1789 with the storming of the Bastille.',
  'Cells divide by mitosis, producing two identical daughter cells.',
  'Café culture in Paris shaped the discussions of the Enlightenment.',
];

describe.each(TEST_DIALECTS)('full-text chunk search on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let biology: number;
  let history: number;
  let documentId: number;

  const search = (knowledgeBaseIds: number[], query: string, limit: number) =>
    searchChunksFullText(store.db, { dialect, knowledgeBaseIds, query, limit });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    await bootstrapAdmin(store.db, 'kb-admin@merino.test', 'kb-admin-password', TEST_PASSWORD_HASH_COST);
    const admin = await store.db.selectFrom('users').select(['id', 'organization_id']).executeTakeFirstOrThrow();
    const newBase = (name: string) =>
      insertKnowledgeBase(store.db, {
        ownerId: admin.id,
        organizationId: admin.organization_id,
        name,
        description: '',
        chunkSize: 1000,
        chunkOverlap: 200,
      });
    biology = await newBase('Biology');
    history = await newBase('History');
    const addDocument = async (knowledgeBaseId: number, passages: string[]) => {
      const id = await insertCompletedDocument(store.db, knowledgeBaseId);
      await insertChunks(
        store.db,
        id,
        passages.map((text, index) => ({
          knowledge_base_id: knowledgeBaseId,
          chunk_index: index,
          text,
          metadata: JSON.stringify({ filename: 'notes.md', chunk_index: index }),
        })),
      );
      return id;
    };
    documentId = await addDocument(biology, [PASSAGES[0]!, PASSAGES[1]!, PASSAGES[3]!]);
    await addDocument(history, [PASSAGES[2]!, PASSAGES[4]!]);
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('ranks the chunk that matches the query first, with similarity in [0, 1)', async () => {
    const hits = await search([biology], 'How do cells divide?', 3);
    expect(hits[0]?.text).toBe(PASSAGES[3]);
    for (const hit of hits) expect(hit.similarity > 0 && hit.similarity < 1).toBe(true);
    expect(hits.map((hit) => hit.similarity)).toEqual([...hits.map((hit) => hit.similarity)].sort((a, b) => b - a));
    expect(hits[0]?.metadata).toEqual({ filename: 'notes.md', chunk_index: 2 });
  });

  it('searches only the knowledge bases asked for', async () => {
    expect(await search([biology], 'Bastille revolution', 5)).toEqual([]);
    const both = await search([biology, history], 'energy revolution', 5);
    expect(new Set(both.map((hit) => hit.knowledgeBaseId))).toEqual(new Set([biology, history]));
  });

  it('matches other forms of a word through stemming, and accents through folding on SQLite', async () => {
    const hits = await search([biology], 'dividing cell', 5);
    expect(hits.map((hit) => hit.text)).toContain(PASSAGES[3]);
    if (dialect === 'sqlite') expect((await search([history], 'cafe', 5))[0]?.text).toBe(PASSAGES[4]);
  });

  it('treats full-text syntax in a query as plain words, never as an error', async () => {
    for (const hostile of [
      '"unbalanced',
      'cells OR',
      'NEAR(cells energy)',
      'cell*',
      'text:cells',
      "'); drop table kb_chunks; --",
      'a & b | !c <-> d',
      '***',
    ]) {
      await expect(search([biology], hostile, 5)).resolves.toBeInstanceOf(Array);
    }
    expect(await search([biology], '', 5)).toEqual([]);
    expect((await store.db.selectFrom('kb_chunks').select('id').execute()).length).toBe(5);
  });

  it('keeps at most QUERY_TERMS_MAXIMUM distinct terms of a long query', () => {
    const terms = queryTerms(Array.from({ length: 200 }, (_, index) => `word${index}`).join(' '), 'english');
    expect(terms.size).toBe(QUERY_TERMS_MAXIMUM);
    expect(queryTerms('Cells, cells; CELLS!', 'english')).toEqual(new Map([['cell', 3]]));
  });

  it('drops deleted chunks from the index', async () => {
    await deleteDocumentChunks(store.db, documentId);
    expect(await search([biology], 'mitochondria energy cells', 5)).toEqual([]);
  });
});
