/** Knowledge bases, their documents and chunks: the rows ingestion writes and retrieval reads. */
import type { Insertable, Kysely } from 'kysely';
import { nowTimestamp, type Database, type DocumentStatus, type KbChunksTable } from './schema.js';

export interface NewKnowledgeBase {
  ownerId: number;
  organizationId: number;
  name: string;
  description: string;
  chunkSize: number;
  chunkOverlap: number;
}

export async function insertKnowledgeBase(db: Kysely<Database>, knowledgeBase: NewKnowledgeBase): Promise<number> {
  const timestamp = nowTimestamp();
  const { id } = await db
    .insertInto('knowledge_bases')
    .values({
      owner_id: knowledgeBase.ownerId,
      organization_id: knowledgeBase.organizationId,
      name: knowledgeBase.name,
      description: knowledgeBase.description,
      visibility: 'private',
      chunk_size: knowledgeBase.chunkSize,
      chunk_overlap: knowledgeBase.chunkOverlap,
      created_at: timestamp,
      updated_at: timestamp,
      deleted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export interface NewDocument {
  knowledgeBaseId: number;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  sourceUrl: string | null;
  status: DocumentStatus;
  metadata: Record<string, unknown>;
}

export async function insertDocument(db: Kysely<Database>, document: NewDocument): Promise<number> {
  const timestamp = nowTimestamp();
  const { id } = await db
    .insertInto('kb_documents')
    .values({
      knowledge_base_id: document.knowledgeBaseId,
      file_name: document.fileName,
      content_type: document.contentType,
      size_bytes: document.sizeBytes,
      source_url: document.sourceUrl,
      status: document.status,
      error: null,
      chunk_count: 0,
      metadata: JSON.stringify(document.metadata),
      created_at: timestamp,
      updated_at: timestamp,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** Rows per INSERT: well under both dialects' bound-parameter limits. */
const CHUNK_INSERT_BATCH = 200;

/** Inserts a document's chunks and records their count; call it inside a transaction. */
export async function insertChunks(db: Kysely<Database>, documentId: number, chunks: ReadonlyArray<Omit<Insertable<KbChunksTable>, 'document_id'>>): Promise<void> {
  for (let start = 0; start < chunks.length; start += CHUNK_INSERT_BATCH) {
    const batch = chunks.slice(start, start + CHUNK_INSERT_BATCH).map((chunk) => ({ ...chunk, document_id: documentId }));
    await db.insertInto('kb_chunks').values(batch).execute();
  }
  await db.updateTable('kb_documents').set({ chunk_count: chunks.length, updated_at: nowTimestamp() }).where('id', '=', documentId).execute();
}

export async function deleteDocumentChunks(db: Kysely<Database>, documentId: number): Promise<void> {
  await db.deleteFrom('kb_chunks').where('document_id', '=', documentId).execute();
}
