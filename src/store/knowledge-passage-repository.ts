/**
 * A document's passages by position, for showing one passage in context: the document's name
 * and a window of its chunks in order. Both queries are scoped to the knowledge base, so a
 * document id of another knowledge base finds nothing.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface PassageDocument {
  id: number;
  file_name: string;
  chunk_count: number;
}

export interface StoredPassage {
  chunk_index: number;
  text: string;
  metadata: string;
}

export async function findPassageDocument(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  documentId: number,
): Promise<PassageDocument | undefined> {
  return db
    .selectFrom('kb_documents')
    .select(['id', 'file_name', 'chunk_count'])
    .where('id', '=', documentId)
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .executeTakeFirst();
}

export interface PassageWindow {
  knowledgeBaseId: number;
  documentId: number;
  firstIndex: number;
  lastIndex: number;
}

/** The document's chunks from firstIndex to lastIndex, in order. */
export async function listPassageWindow(db: Kysely<Database>, window: PassageWindow): Promise<StoredPassage[]> {
  return db
    .selectFrom('kb_chunks')
    .select(['chunk_index', 'text', 'metadata'])
    .where('knowledge_base_id', '=', window.knowledgeBaseId)
    .where('document_id', '=', window.documentId)
    .where('chunk_index', '>=', window.firstIndex)
    .where('chunk_index', '<=', window.lastIndex)
    .orderBy('chunk_index')
    .execute();
}
