/**
 * Where a passage of "Try a query" came from, read from its result's metadata: the document's
 * name and id, the passage's index, its section and page. The metadata is an open object (a
 * document's own metadata is merged in), so each field is kept only when it has the expected type.
 */
import type { QueryResult } from '$lib/api/knowledge-text';

export interface QueryResultOrigin {
  fileName: string | undefined;
  documentId: number | undefined;
  chunkIndex: number | undefined;
  section: string | undefined;
  page: number | undefined;
}

function wholeNumber(value: unknown, minimum: number): number | undefined {
  const number = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= minimum ? number : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function queryResultOrigin(result: QueryResult): QueryResultOrigin {
  const metadata: Record<string, unknown> = result.metadata;
  return {
    fileName: text(metadata['filename']) ?? text(metadata['file_name']),
    documentId: wholeNumber(metadata['document_id'], 1),
    chunkIndex: wholeNumber(metadata['chunk_index'], 0),
    section: text(metadata['heading']),
    page: wholeNumber(metadata['page'], 1),
  };
}
