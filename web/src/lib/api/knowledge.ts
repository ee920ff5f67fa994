/**
 * What an assistant can read, as the API lists it for the signed-in user: knowledge bases
 * (/api/knowledge-bases), rubrics (/api/rubrics) and files (/api/files), by the names and ids
 * the assistant editor's pickers show. Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

/** The fields of each listed item the pickers read, as the generated types declare them. */
export type KnowledgeBaseRow = Pick<JsonAnswer<'/api/knowledge-bases', 'get'>['items'][number], 'id' | 'name'>;
export type RubricRow = Pick<JsonAnswer<'/api/rubrics', 'get'>['items'][number], 'rubricId' | 'title'>;
export type FileRow = Pick<JsonAnswer<'/api/files', 'get'>['items'][number], 'file_path' | 'name'>;

/** Whose rubrics: the user's own, or the organization's readable ones; unset, the server's default. */
export type RubricScope = 'mine' | 'organization';

export async function listKnowledgeBases(): Promise<KnowledgeBaseRow[]> {
  return (await answerOf(apiClient.GET('/api/knowledge-bases'))).items;
}

export async function listRubrics(scope?: RubricScope): Promise<RubricRow[]> {
  const query = scope === undefined ? {} : { scope };
  return (await answerOf(apiClient.GET('/api/rubrics', { params: { query } }))).items;
}

export async function listFiles(): Promise<FileRow[]> {
  return (await answerOf(apiClient.GET('/api/files'))).items;
}
