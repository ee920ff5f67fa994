/**
 * The assistants area of the API (/api/assistants): listing, reading, saving, publishing,
 * sharing, converting, importing and exporting assistants. Every call goes through the typed client.
 */
import type { ImportPreview } from './import-preview';
import { hasConfiguration, type Assistant, type AssistantPage, type AssistantSummary } from './assistant-types';
import { ApiError } from './api-error';
import { answerOf, apiClient, saveDownload } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

/** Which assistants a list asks for: a page of them, of one type, matching a search. */
export interface AssistantListParameters {
  limit?: number;
  offset?: number;
  type?: 'classic' | 'multi_tool' | 'orchestrator';
  q?: string;
}

/** An assistant another may call as a tool, or the reason it may not (GET /api/assistants/{id}/tool-candidates). */
export type ToolCandidate = JsonAnswer<'/api/assistants/{id}/tool-candidates', 'get'>['items'][number];

export type AssistantBody = RequestBody<'/api/assistants', 'post'>;

/** A document as export writes it; the server checks it on import. */
export type AssistantDocument = RequestBody<'/api/assistants/import', 'post'>;

function byId(id: number): { params: { path: { id: number } } } {
  return { params: { path: { id } } };
}

export async function listAssistants(parameters: AssistantListParameters = {}): Promise<AssistantPage> {
  return answerOf(apiClient.GET('/api/assistants', { params: { query: parameters } }));
}

/** The whole assistant for those who may see its configuration, its summary for the others. */
export async function readAssistant(id: number): Promise<AssistantSummary | Assistant> {
  return answerOf(apiClient.GET('/api/assistants/{id}', byId(id)));
}

export async function createAssistant(body: AssistantBody): Promise<Assistant> {
  return configured(await answerOf(apiClient.POST('/api/assistants', { body })));
}

export async function updateAssistant(id: number, body: AssistantBody): Promise<Assistant> {
  return configured(await answerOf(apiClient.PATCH('/api/assistants/{id}', { ...byId(id), body })));
}

export async function deleteAssistant(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/assistants/{id}', byId(id)));
}

export async function publishAssistant(id: number, published: boolean): Promise<Assistant> {
  return configured(await answerOf(apiClient.PUT('/api/assistants/{id}/publish', { ...byId(id), body: { published } })));
}

/** The emails the assistant is shared with. */
export async function readShares(id: number): Promise<string[]> {
  return (await answerOf(apiClient.GET('/api/assistants/{id}/shares', byId(id)))).user_emails;
}

/** Shares the assistant with exactly these emails; answers the list as kept. */
export async function replaceShares(id: number, emails: string[]): Promise<string[]> {
  return (await answerOf(apiClient.PUT('/api/assistants/{id}/shares', { ...byId(id), body: { user_emails: emails } }))).user_emails;
}

export async function listToolCandidates(id: number): Promise<ToolCandidate[]> {
  return (await answerOf(apiClient.GET('/api/assistants/{id}/tool-candidates', byId(id)))).items;
}

/** Converts a classic assistant to multi-tool; with `dryRun` only says what would change. */
export async function convertAssistant(id: number, dryRun: boolean): Promise<unknown> {
  return answerOf(apiClient.POST('/api/assistants/{id}/convert', { ...byId(id), body: { dry_run: dryRun } }));
}

export async function exportAssistant(id: number): Promise<AssistantDocument> {
  return answerOf(apiClient.GET('/api/assistants/{id}/export', byId(id)));
}

export async function downloadAssistant(id: number, fallbackName: string): Promise<void> {
  await saveDownload(apiClient.GET('/api/assistants/{id}/export', { ...byId(id), parseAs: 'blob' }), fallbackName);
}

/**
 * What importing the document would make, and the problems it has, without making anything. A
 * document read from a file is whatever the file holds: the server checks it, and answers a 400
 * naming what is wrong, so it is passed on as it is.
 */
export async function previewImport(document: unknown): Promise<ImportPreview> {
  const body = document as AssistantDocument;
  const answer = await answerOf(apiClient.POST('/api/assistants/import', { params: { query: { dry_run: true } }, body }));
  if (!('problems' in answer)) throw unexpectedImportAnswer();
  return answer;
}

export async function importAssistant(document: unknown): Promise<Assistant> {
  const answer = await answerOf(apiClient.POST('/api/assistants/import', { body: document as AssistantDocument }));
  if ('problems' in answer) throw unexpectedImportAnswer();
  return configured(answer);
}

/**
 * An assistant the caller has just written (created, changed, published, imported): whoever may
 * write it may see its configuration, so an answer without it is the server's mistake.
 */
function configured(answer: AssistantSummary): Assistant {
  if (!hasConfiguration(answer)) {
    throw new ApiError({ status: 200, code: 'unexpected_response', message: 'The assistant came back without its configuration.' });
  }
  return answer;
}

/** The import route answers a preview with `dry_run` and the new assistant without; anything else is the server's mistake. */
function unexpectedImportAnswer(): ApiError {
  return new ApiError({ status: 200, code: 'unexpected_response', message: 'The import answered in an unexpected shape.' });
}
