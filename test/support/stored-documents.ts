/**
 * Knowledge bases, completed documents and their chunks written straight through the
 * repositories, for tests and benchmarks of search that work below the HTTP API.
 */
import type { Kysely } from 'kysely';
import { insertDocument } from '../../src/store/knowledge-documents-repository.js';
import { insertChunks, insertKnowledgeBase } from '../../src/store/knowledge-repository.js';
import type { Database } from '../../src/store/schema.js';

export function insertCompletedDocument(db: Kysely<Database>, knowledgeBaseId: number, fileName = 'notes.md'): Promise<number> {
  return insertDocument(db, {
    knowledgeBaseId,
    fileName,
    contentType: 'text/markdown',
    sizeBytes: 100,
    sourceUrl: null,
    status: 'completed',
    metadata: {},
  });
}

/** A knowledge base of the store's first user (chunks of 1,000 characters, 200 overlapping), written straight through the repository. */
export async function insertTestKnowledgeBase(db: Kysely<Database>, name: string, searchLanguage?: string): Promise<number> {
  const owner = await db.selectFrom('users').select(['id', 'organization_id']).orderBy('id').executeTakeFirstOrThrow();
  return insertKnowledgeBase(db, {
    ownerId: owner.id,
    organizationId: owner.organization_id,
    name,
    description: '',
    chunkSize: 1000,
    chunkOverlap: 200,
    ...(searchLanguage !== undefined && { searchLanguage }),
  });
}

/** A completed document of one chunk per text (metadata `{}`), chunks and postings written in one transaction; answers its id. */
export async function insertDocumentOfChunks(db: Kysely<Database>, knowledgeBaseId: number, texts: readonly string[]): Promise<number> {
  const documentId = await insertCompletedDocument(db, knowledgeBaseId);
  await db.transaction().execute((transaction) =>
    insertChunks(
      transaction,
      documentId,
      texts.map((text, index) => ({ knowledge_base_id: knowledgeBaseId, chunk_index: index, text, metadata: '{}' })),
    ),
  );
  return documentId;
}

export interface DocumentOfPassages {
  fileName: string;
  contentType: string;
  passages: ReadonlyArray<{ text: string; heading?: string; page?: number }>;
}

/**
 * A completed document of one chunk per passage, each chunk's metadata naming its file, document
 * and place, and its page and heading when given, as ingestion writes them, so answers cite it as
 * they cite an uploaded file; answers its id.
 */
export async function insertDocumentOfPassages(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  document: DocumentOfPassages,
): Promise<number> {
  const { fileName, contentType, passages } = document;
  const documentId = await insertDocument(db, {
    knowledgeBaseId,
    fileName,
    contentType,
    sizeBytes: 1000,
    sourceUrl: null,
    status: 'completed',
    metadata: {},
  });
  await insertChunks(
    db,
    documentId,
    passages.map((passage, index) => ({
      knowledge_base_id: knowledgeBaseId,
      chunk_index: index,
      text: passage.text,
      metadata: JSON.stringify({
        filename: fileName,
        document_id: documentId,
        chunk_index: index,
        chunk_count: passages.length,
        ...(passage.page !== undefined && { page: passage.page }),
        ...(passage.heading !== undefined && { heading: passage.heading }),
      }),
    })),
  );
  return documentId;
}
