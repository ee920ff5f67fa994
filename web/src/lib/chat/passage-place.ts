/**
 * Where a source's passage is in Merino's own knowledge bases, when it is there: a knowledge
 * base, a document and a chunk, all whole numbers. A knowledge server's collection names, or a
 * source of another tool, have no such place, so they get no "Show in context".
 */
import type { Source } from '$lib/api/chat-types';
import type { PassagePlace } from '$lib/api/passages';

const WHOLE_NUMBER = /^[1-9]\d{0,9}$/;

export function passagePlace(source: Source, assistantId: number): PassagePlace | undefined {
  const { knowledge_base_id: knowledgeBaseId, document_id: documentId, chunk_index: chunkIndex } = source;
  if (typeof knowledgeBaseId !== 'string' || !WHOLE_NUMBER.test(knowledgeBaseId)) return undefined;
  if (typeof documentId !== 'string' || !WHOLE_NUMBER.test(documentId)) return undefined;
  if (typeof chunkIndex !== 'number' || !Number.isInteger(chunkIndex) || chunkIndex < 0) return undefined;
  return { knowledgeBaseId: Number(knowledgeBaseId), documentId: Number(documentId), chunkIndex, assistantId };
}
