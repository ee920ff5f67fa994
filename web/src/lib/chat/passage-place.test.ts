/** Only a passage of Merino's own knowledge bases, named by whole numbers, can be opened in context. */
import { describe, expect, it } from 'vitest';
import { passagePlace } from './passage-place';

describe('where a passage is', () => {
  it('reads the knowledge base, document and chunk of a passage', () => {
    expect(passagePlace({ title: 'a.md', knowledge_base_id: '3', document_id: '12', chunk_index: 0 }, 7)).toEqual({
      knowledgeBaseId: 3,
      documentId: 12,
      chunkIndex: 0,
      assistantId: 7,
    });
  });

  it.each([
    { knowledge_base_id: 'biology-notes', document_id: '12', chunk_index: 0 },
    { knowledge_base_id: '3', document_id: '../12', chunk_index: 0 },
    { knowledge_base_id: '3', document_id: '12?x=1', chunk_index: 0 },
    { knowledge_base_id: '0', document_id: '12', chunk_index: 0 },
    { knowledge_base_id: '3', document_id: '12', chunk_index: -1 },
    { knowledge_base_id: '3', document_id: '12', chunk_index: 1.5 },
    { knowledge_base_id: '3', document_id: '12' },
    { knowledge_base_id: '99999999999', document_id: '12', chunk_index: 0 },
    {},
  ])('has no place for %j', (fields) => {
    expect(passagePlace({ title: 'x', ...fields }, 7)).toBeUndefined();
  });
});
