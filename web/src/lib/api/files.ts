/**
 * The files area of the API (/api/files) as the /files page uses it: a page of the caller's
 * files, upload one, the start of one's text, which assistants use one, and delete (with `force`
 * once the teacher has confirmed deleting a file in use). Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type StoredFile = JsonAnswer<'/api/files', 'get'>['items'][number];
export type StoredFilePage = JsonAnswer<'/api/files', 'get'>;
export type FileText = JsonAnswer<'/api/files/{id}/text', 'get'>;
export type FileUsage = JsonAnswer<'/api/files/{id}/usage', 'get'>;

function byId(id: number): { params: { path: { id: number } } } {
  return { params: { path: { id } } };
}

export async function listFilePage(bounds: { limit: number; offset: number }): Promise<StoredFilePage> {
  return answerOf(apiClient.GET('/api/files', { params: { query: bounds } }));
}

export async function uploadFile(file: File): Promise<StoredFile> {
  const form = new FormData();
  form.append('file', file, file.name);
  // The generated type calls the binary part a string; the serializer sends the real file, as multipart.
  return answerOf(apiClient.POST('/api/files', { body: { file: file.name }, bodySerializer: () => form }));
}

export async function readFileText(id: number): Promise<FileText> {
  return answerOf(apiClient.GET('/api/files/{id}/text', byId(id)));
}

export async function readFileUsage(id: number): Promise<FileUsage> {
  return answerOf(apiClient.GET('/api/files/{id}/usage', byId(id)));
}

/** Deletes it; `force` only after the teacher confirmed deleting a file assistants use (409 file_in_use otherwise). */
export async function deleteFile(id: number, force: boolean): Promise<void> {
  await answerOf(apiClient.DELETE('/api/files/{id}', { params: { path: { id }, query: { force } } }));
}
