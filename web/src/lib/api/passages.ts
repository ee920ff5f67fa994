/**
 * A cited knowledge-base passage with its neighbours in the document, for the chat page's sources
 * (GET /api/knowledge-bases/{id}/documents/{documentId}/passages/{chunkIndex}). Naming the
 * assistant lets a learner who may chat with it read what it searched.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

const PASSAGE_PATH = '/api/knowledge-bases/{id}/documents/{documentId}/passages/{chunkIndex}';

export type PassageInContext = JsonAnswer<typeof PASSAGE_PATH, 'get'>;

export interface PassagePlace {
  knowledgeBaseId: number;
  documentId: number;
  chunkIndex: number;
  assistantId: number;
}

export async function readPassageInContext(place: PassagePlace): Promise<PassageInContext> {
  return answerOf(
    apiClient.GET(PASSAGE_PATH, {
      params: {
        path: { id: place.knowledgeBaseId, documentId: place.documentId, chunkIndex: place.chunkIndex },
        query: { assistant_id: place.assistantId },
      },
    }),
  );
}
