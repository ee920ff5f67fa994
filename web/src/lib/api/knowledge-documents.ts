/**
 * One knowledge base's page as it calls the API: read and change the knowledge base (sharing,
 * language), add a web page by its address (alone, or following its same-site links as a crawl),
 * refresh a web page document now or on a schedule, list its documents and ingestion jobs, retry or cancel a job, delete a document and
 * download its original. Every call goes through the typed client; uploads are in
 * document-upload.ts and the live job events in job-events.ts.
 */
import { answerOf, apiClient, saveDownload } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

export type KnowledgeBaseDetail = JsonAnswer<'/api/knowledge-bases/{id}', 'get'>;
export type KnowledgeBaseChange = RequestBody<'/api/knowledge-bases/{id}', 'patch'>;
export type KnowledgeDocument = JsonAnswer<'/api/knowledge-bases/{id}/documents', 'get'>['items'][number];
export type IngestionJob = JsonAnswer<'/api/knowledge-bases/{id}/jobs/{jobId}', 'get'>;
export type AddedWebPage = JsonAnswer<'/api/knowledge-bases/{id}/web-pages', 'post'>;
export type WebCrawl = JsonAnswer<'/api/knowledge-bases/{id}/web-crawls/{crawlId}', 'get'>;
export type WebCrawlRequest = RequestBody<'/api/knowledge-bases/{id}/web-crawls', 'post'>;
export type DocumentRefresh = JsonAnswer<'/api/knowledge-bases/{id}/documents/{documentId}/refresh', 'post'>;

/** The most documents and jobs one page of the list asks for; the server's page bound caps it. */
const LISTED_MAXIMUM = 100;

export async function readKnowledgeBase(id: number): Promise<KnowledgeBaseDetail> {
  return answerOf(apiClient.GET('/api/knowledge-bases/{id}', { params: { path: { id } } }));
}

export async function changeKnowledgeBase(id: number, change: KnowledgeBaseChange): Promise<KnowledgeBaseDetail> {
  return answerOf(apiClient.PATCH('/api/knowledge-bases/{id}', { params: { path: { id } }, body: change }));
}

/** Reads the page now and queues its text for indexing; a page that cannot be read is refused with the reason. */
export async function addWebPage(id: number, url: string): Promise<AddedWebPage> {
  return answerOf(apiClient.POST('/api/knowledge-bases/{id}/web-pages', { params: { path: { id } }, body: { url } }));
}

/** Starts reading the page and its same-site links; the crawl runs on the server and is read with readWebCrawl. */
export async function startWebCrawl(id: number, crawl: WebCrawlRequest): Promise<WebCrawl> {
  return answerOf(apiClient.POST('/api/knowledge-bases/{id}/web-crawls', { params: { path: { id } }, body: crawl }));
}

export async function readWebCrawl(id: number, crawlId: number): Promise<WebCrawl> {
  return answerOf(apiClient.GET('/api/knowledge-bases/{id}/web-crawls/{crawlId}', { params: { path: { id, crawlId } } }));
}

/**
 * Reads the document's page again now, re-indexing it only if its text changed; `everySeconds`
 * also sets its schedule (null: none), left as it is when absent.
 */
export async function refreshDocument(id: number, documentId: number, everySeconds?: number | null): Promise<DocumentRefresh> {
  return answerOf(
    apiClient.POST('/api/knowledge-bases/{id}/documents/{documentId}/refresh', {
      params: { path: { id, documentId } },
      body: everySeconds === undefined ? {} : { every_seconds: everySeconds },
    }),
  );
}

export async function listDocuments(id: number): Promise<{ items: KnowledgeDocument[]; total: number }> {
  return answerOf(apiClient.GET('/api/knowledge-bases/{id}/documents', { params: { path: { id }, query: { limit: LISTED_MAXIMUM } } }));
}

export async function listJobs(id: number): Promise<IngestionJob[]> {
  const page = await answerOf(
    apiClient.GET('/api/knowledge-bases/{id}/jobs', { params: { path: { id }, query: { limit: LISTED_MAXIMUM } } }),
  );
  return page.items;
}

export async function retryJob(id: number, jobId: number): Promise<IngestionJob> {
  return answerOf(apiClient.POST('/api/knowledge-bases/{id}/jobs/{jobId}/retry', { params: { path: { id, jobId } } }));
}

export async function cancelJob(id: number, jobId: number): Promise<IngestionJob> {
  return answerOf(apiClient.POST('/api/knowledge-bases/{id}/jobs/{jobId}/cancel', { params: { path: { id, jobId } } }));
}

export async function deleteDocument(id: number, documentId: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/knowledge-bases/{id}/documents/{documentId}', { params: { path: { id, documentId } } }));
}

/** Saves the document as it was uploaded, under its own name. */
export async function downloadDocument(id: number, documentId: number, fileName: string): Promise<void> {
  await saveDownload(
    apiClient.GET('/api/knowledge-bases/{id}/documents/{documentId}/content', { params: { path: { id, documentId } }, parseAs: 'blob' }),
    fileName,
  );
}
