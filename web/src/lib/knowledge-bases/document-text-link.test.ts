/** The View text page's address carries only whole numbers: the passage and the assistant, and reads back only whole numbers. */
import { describe, expect, it } from 'vitest';
import { documentTextHref, wholeNumberParameter } from './document-text-link';

describe("a document text's address", () => {
  it('opens at a passage, through an assistant when one is named', () => {
    expect(documentTextHref({ knowledgeBaseId: 3, documentId: 12 })).toBe('/knowledge-bases/3/documents/12');
    expect(documentTextHref({ knowledgeBaseId: 3, documentId: 12, chunkIndex: 0 })).toBe('/knowledge-bases/3/documents/12?passage=0');
    expect(documentTextHref({ knowledgeBaseId: 3, documentId: 12, chunkIndex: 4, assistantId: 7 })).toBe(
      '/knowledge-bases/3/documents/12?passage=4&assistant_id=7',
    );
  });

  it('leaves out a passage or an assistant that is not a whole number', () => {
    expect(documentTextHref({ knowledgeBaseId: 3, documentId: 12, chunkIndex: -1, assistantId: 0 })).toBe(
      '/knowledge-bases/3/documents/12',
    );
    expect(documentTextHref({ knowledgeBaseId: 3, documentId: 12, chunkIndex: 1.5, assistantId: Number.NaN })).toBe(
      '/knowledge-bases/3/documents/12',
    );
  });

  it.each([
    ['0', 0, 0],
    ['42', 0, 42],
    ['0', 1, undefined],
    ['-1', 0, undefined],
    ['1.5', 0, undefined],
    ['1e3', 0, undefined],
    ['<script>', 0, undefined],
    ['99999999999', 0, undefined],
    ['', 0, undefined],
    [null, 0, undefined],
  ] as const)('reads %j (at least %i) as %j', (written, minimum, read) => {
    expect(wholeNumberParameter(written, minimum)).toBe(read);
  });
});
