/**
 * A knowledge base's text as a teacher checks it: "Try a query" (POST /api/knowledge-bases/{id}/query,
 * the passages Merino would hand an assistant) and "View text" (GET …/documents/{documentId}/passages,
 * a document's extracted text a page of passages at a time). Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

const QUERY_PATH = '/api/knowledge-bases/{id}/query';
const DOCUMENT_TEXT_PATH = '/api/knowledge-bases/{id}/documents/{documentId}/passages';

export type QueryAnswer = JsonAnswer<typeof QUERY_PATH, 'post'>;
export type QueryResult = QueryAnswer['results'][number];
export type DocumentTextPage = JsonAnswer<typeof DOCUMENT_TEXT_PATH, 'get'>;
export type DocumentPassage = DocumentTextPage['items'][number];

export interface KnowledgeQuery {
  knowledgeBaseId: number;
  question: string;
  topK: number;
  threshold: number;
}

export async function queryKnowledgeBase(query: KnowledgeQuery): Promise<QueryAnswer> {
  const body: RequestBody<typeof QUERY_PATH, 'post'> = { query_text: query.question, top_k: query.topK, threshold: query.threshold };
  return answerOf(apiClient.POST(QUERY_PATH, { params: { path: { id: query.knowledgeBaseId } }, body }));
}

export interface DocumentTextRequest {
  knowledgeBaseId: number;
  documentId: number;
  offset: number;
  limit: number;
  /** The assistant through which a learner reads what it searched; unset for those who may view the knowledge base. */
  assistantId?: number | undefined;
}

export async function readDocumentText(request: DocumentTextRequest): Promise<DocumentTextPage> {
  const query = {
    offset: request.offset,
    limit: request.limit,
    ...(request.assistantId !== undefined && { assistant_id: request.assistantId }),
  };
  return answerOf(
    apiClient.GET(DOCUMENT_TEXT_PATH, {
      params: { path: { id: request.knowledgeBaseId, documentId: request.documentId }, query },
    }),
  );
}
