/**
 * The texts of small JSON documents, kept in the store next to their rows (migration 0095) rather
 * than as files: written in the transaction that writes the rows, read by the ingestion runner a
 * batch at a time, served as the document's content. A document without a row here has its bytes
 * in blob storage, as every upload does.
 */
import type { Kysely } from 'kysely';
import { insertRowBatch, type RowBatchShape } from './row-batch-insert.js';
import type { Database } from './schema.js';

/** A document's text, as insertDocumentTexts writes it. */
const DOCUMENT_TEXT_ROW: RowBatchShape = {
  table: 'kb_document_texts',
  columns: ['document_id', 'text'],
  postgresTypes: ['integer', 'text'],
};

export interface DocumentText {
  documentId: number;
  text: string;
}

/** Stores the texts of documents whose rows exist (call in the transaction that wrote them). */
export async function insertDocumentTexts(db: Kysely<Database>, texts: readonly DocumentText[]): Promise<void> {
  await insertRowBatch(
    db,
    DOCUMENT_TEXT_ROW,
    texts.flatMap(({ documentId, text }) => [documentId, text]),
  );
}

/** The stored texts of the documents that have one, by document id; the others are absent from the map. */
export async function findDocumentTexts(db: Kysely<Database>, documentIds: readonly number[]): Promise<Map<number, string>> {
  if (documentIds.length === 0) return new Map();
  const rows = await db.selectFrom('kb_document_texts').select(['document_id', 'text']).where('document_id', 'in', documentIds).execute();
  return new Map(rows.map((row) => [row.document_id, row.text]));
}

/** The stored text of one document, or undefined when its bytes are a file. */
export async function findDocumentText(db: Kysely<Database>, documentId: number): Promise<string | undefined> {
  return (await findDocumentTexts(db, [documentId])).get(documentId);
}

/** Forgets a document's stored text: its bytes are (now) a file, or the document goes. */
export async function deleteDocumentText(db: Kysely<Database>, documentId: number): Promise<void> {
  await db.deleteFrom('kb_document_texts').where('document_id', '=', documentId).execute();
}

/** Forgets the stored texts of every document of a knowledge base, before its documents' rows go. */
export async function deleteKnowledgeBaseDocumentTexts(db: Kysely<Database>, knowledgeBaseId: number): Promise<void> {
  await db
    .deleteFrom('kb_document_texts')
    .where('document_id', 'in', (eb) => eb.selectFrom('kb_documents').select('id').where('knowledge_base_id', '=', knowledgeBaseId))
    .execute();
}
