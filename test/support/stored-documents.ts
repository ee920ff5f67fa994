/**
 * A completed document written straight through the documents repository, for tests and
 * benchmarks of search that work below the HTTP API and add its chunks themselves.
 */
import type { Kysely } from 'kysely';
import { insertDocument } from '../../src/store/knowledge-documents-repository.js';
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
