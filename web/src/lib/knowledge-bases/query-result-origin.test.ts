/** Where a query's passage came from is read from its open metadata only where each key has the expected type. */
import { describe, expect, it } from 'vitest';
import { queryResultOrigin } from './query-result-origin';

describe("a query passage's origin", () => {
  it('reads the document, passage, section and page Merino writes', () => {
    const metadata = { filename: 'cells.md', document_id: 12, chunk_index: 0, heading: 'Mitosis', page: 3, knowledge_base_id: 4 };
    expect(queryResultOrigin({ similarity: 0.5, data: 'text', metadata })).toEqual({
      fileName: 'cells.md',
      documentId: 12,
      chunkIndex: 0,
      section: 'Mitosis',
      page: 3,
    });
  });

  it("leaves out what a document's own metadata wrote in another shape", () => {
    const metadata = { filename: 7, document_id: 'twelve', chunk_index: -1, heading: '  ', page: 'iv' };
    expect(queryResultOrigin({ similarity: 0.5, data: 'text', metadata })).toEqual({
      fileName: undefined,
      documentId: undefined,
      chunkIndex: undefined,
      section: undefined,
      page: undefined,
    });
  });
});
