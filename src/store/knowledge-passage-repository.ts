/**
 * A document's passages by position, for showing one passage in context or the whole text a page
 * at a time: the document's name and a window or a page of its chunks in order. Every query is
 * scoped to the knowledge base, so a document id of another knowledge base finds nothing.
 */
import type { Kysely } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { Database, DocumentStatus } from './schema.js';

export interface PassageDocument {
  id: number;
  file_name: string;
  chunk_count: number;
  status: DocumentStatus;
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
    .select(['id', 'file_name', 'chunk_count', 'status'])
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

export interface PassagePageRequest extends PageBounds {
  knowledgeBaseId: number;
  documentId: number;
}

/** One page of the document's chunks in reading order, and how many it has in all. */
export async function listPassagePage(
  db: Kysely<Database>,
  page: PassagePageRequest,
): Promise<{ passages: StoredPassage[]; total: number }> {
  const ofDocument = db
    .selectFrom('kb_chunks')
    .where('knowledge_base_id', '=', page.knowledgeBaseId)
    .where('document_id', '=', page.documentId);
  const [passages, counted] = await Promise.all([
    ofDocument.select(['chunk_index', 'text', 'metadata']).orderBy('chunk_index').limit(page.limit).offset(page.offset).execute(),
    ofDocument.select((builder) => builder.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { passages, total: Number(counted.count) };
}

/** A passage of a sample, with its document's name. */
export interface SampledPassage {
  file_name: string;
  text: string;
}

/**
 * A spread of passages over the knowledge bases: the first `chunksPerDocument` chunks of at most
 * `documentsMaximum` ingested documents, first chunks of every document before second ones. Two
 * bounded reads, whatever the size of the knowledge bases.
 */
export async function samplePassages(
  db: Kysely<Database>,
  sample: { knowledgeBaseIds: readonly number[]; documentsMaximum: number; chunksPerDocument: number },
): Promise<SampledPassage[]> {
  if (sample.knowledgeBaseIds.length === 0) return [];
  const documents = await db
    .selectFrom('kb_documents')
    .select(['id', 'file_name'])
    .where('knowledge_base_id', 'in', [...sample.knowledgeBaseIds])
    .where('status', '=', 'completed')
    .orderBy('id')
    .limit(sample.documentsMaximum)
    .execute();
  if (documents.length === 0) return [];
  const names = new Map(documents.map((document) => [document.id, document.file_name]));
  const chunks = await db
    .selectFrom('kb_chunks')
    .select(['document_id', 'text'])
    .where('document_id', 'in', [...names.keys()])
    .where('chunk_index', '<', sample.chunksPerDocument)
    .orderBy('chunk_index')
    .orderBy('document_id')
    .execute();
  return chunks.map((chunk) => ({ file_name: names.get(chunk.document_id) ?? '', text: chunk.text }));
}
