/**
 * Writers of one knowledge base's full-text index, at once:
 * - on PostgreSQL, a second writer writes its postings while the first one's transaction is still
 *   open, and waits only for the knowledge base's totals row, the last thing it writes (while that
 *   row was written first, the whole write of every other writer waited behind it);
 * - on both stores, sixteen documents written and four deleted at the same moment leave the index
 *   exactly its chunks' (postings, term lists and totals), with no writer refused for a deadlock.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { deleteDocumentsChunks, insertChunks } from '../src/store/knowledge-repository.js';
import type { Database } from '../src/store/schema.js';
import { openStore, type Store } from '../src/store/store.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { expectIndexMatchesChunks } from './support/search-index-consistency.js';
import { insertCompletedDocument, insertDocumentOfChunks, insertTestKnowledgeBase } from './support/stored-documents.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';

const WRITERS = 16;
const DELETERS = 4;

function textsOf(index: number): string[] {
  return [
    `Glacier ${index} carves a valley as the ice moves slowly downhill.`,
    `Meltwater from glacier ${index} feeds rivers and lakes in summer.`,
    `Moraines mark where glacier ${index} once ended.`,
  ];
}

/** Document `index`'s chunk rows. */
function chunksOf(knowledgeBaseId: number, index: number) {
  return textsOf(index).map((text, chunkIndex) => ({ knowledge_base_id: knowledgeBaseId, chunk_index: chunkIndex, text, metadata: '{}' }));
}

/** Writes a new completed document's chunks (and so its postings) in a transaction of its own. */
async function writeDocument(db: Kysely<Database>, knowledgeBaseId: number, index: number): Promise<void> {
  const documentId = await insertCompletedDocument(db, knowledgeBaseId, `glacier-${index}.md`);
  await db.transaction().execute((transaction) => insertChunks(transaction, documentId, chunksOf(knowledgeBaseId, index)));
}

/** The first server process of the store's database found waiting for a row lock, with the statement it waits in. */
async function waitingWriter(db: Kysely<Database>): Promise<{ pid: number; query: string } | undefined> {
  const rows = await sql<{ pid: number; query: string }>`select pid, query from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(db);
  return rows.rows[0];
}

describe.each(TEST_DIALECTS)('writers of one index at once on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 8 });
    await bootstrapAdmin(store.db, 'writers-admin@merino.test', 'writers-admin-password', TEST_PASSWORD_HASH_COST);
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  // Row locks and other connections' waits are PostgreSQL's: a SQLite store has one writer at a time.
  if (dialect === 'postgres')
    it('writes a second writer’s postings while the first one’s write is open', async () => {
      const knowledgeBaseId = await insertTestKnowledgeBase(store.db, 'Glaciers at once');
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let firstWritten: () => void = () => undefined;
      const firstHasWritten = new Promise<void>((resolve) => (firstWritten = resolve));
      const firstDocument = await insertCompletedDocument(store.db, knowledgeBaseId, 'first.md');
      const first = store.db.transaction().execute(async (transaction) => {
        await insertChunks(transaction, firstDocument, chunksOf(knowledgeBaseId, 1));
        firstWritten();
        await released;
      });
      // A first write that fails ends the test with its error rather than a wait for the timeout.
      await Promise.race([firstHasWritten, first]);
      const second = writeDocument(store.db, knowledgeBaseId, 2);
      let waiting: { pid: number; query: string } | undefined;
      // Up to 30 s: a loaded CI machine may take a while to get the second writer that far.
      for (let attempt = 0; attempt < 1_200 && waiting === undefined; attempt += 1) {
        waiting = await waitingWriter(store.db);
        if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      try {
        expect(waiting, 'the second writer waits for the first').toBeDefined();
        expect(waiting!.query).toMatch(/^update "knowledge_bases" set "index_chunk_count"/);
        // Its postings are written already: its transaction holds the postings table for writing.
        const locks = await sql<{ mode: string }>`select mode from pg_locks
        where pid = ${waiting!.pid} and relation = 'kb_postings'::regclass`.execute(store.db);
        expect(locks.rows.map((row) => row.mode)).toContain('RowExclusiveLock');
      } finally {
        release();
        await first;
        await second;
      }
      await expectIndexMatchesChunks(store.db, knowledgeBaseId);
    });

  it('keeps the index exact when documents are written and deleted at the same moment', async () => {
    const knowledgeBaseId = await insertTestKnowledgeBase(store.db, 'Glaciers together');
    const doomed = [];
    for (let index = 0; index < DELETERS; index += 1)
      doomed.push(await insertDocumentOfChunks(store.db, knowledgeBaseId, textsOf(100 + index)));
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: WRITERS }, (_, index) => writeDocument(store.db, knowledgeBaseId, index)),
      ...doomed.map((documentId) => store.db.transaction().execute((transaction) => deleteDocumentsChunks(transaction, [documentId]))),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    await expectIndexMatchesChunks(store.db, knowledgeBaseId);
    const knowledgeBase = await store.db
      .selectFrom('knowledge_bases')
      .select(['index_chunk_count'])
      .where('id', '=', knowledgeBaseId)
      .executeTakeFirstOrThrow();
    expect(knowledgeBase.index_chunk_count).toBe(WRITERS * textsOf(0).length);
  });
});
