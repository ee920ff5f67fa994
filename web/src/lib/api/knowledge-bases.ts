/**
 * The knowledge-bases area of the API (/api/knowledge-bases) as the /knowledge-bases page uses it:
 * the ones the caller may see with their document and chunk counts, create (and share with the
 * organization), and delete. Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

/** A knowledge base as listed, counts included. */
export type KnowledgeBase = JsonAnswer<'/api/knowledge-bases', 'get'>['items'][number];
export type KnowledgeBasePage = JsonAnswer<'/api/knowledge-bases', 'get'>;

/** What the create dialog sends: the create body's name and description, and whether to share it. */
export interface NewKnowledgeBase {
  name: string;
  description: string;
  /** A BCP-47 tag, or null when not said. */
  language: string | null;
  shareWithOrganization: boolean;
}

/** The first page at the server's default size, with the total the page says it shows part of. */
export async function listKnowledgeBasePage(): Promise<KnowledgeBasePage> {
  return answerOf(apiClient.GET('/api/knowledge-bases'));
}

/** Creates it, then shares it: the create body has no visibility, PATCH sets it. */
export async function createKnowledgeBase(input: NewKnowledgeBase): Promise<KnowledgeBase> {
  const body: RequestBody<'/api/knowledge-bases', 'post'> = { name: input.name, description: input.description, language: input.language };
  const created = await answerOf(apiClient.POST('/api/knowledge-bases', { body }));
  if (!input.shareWithOrganization) return created;
  return answerOf(
    apiClient.PATCH('/api/knowledge-bases/{id}', { params: { path: { id: created.id } }, body: { visibility: 'organization' } }),
  );
}

export async function deleteKnowledgeBase(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/knowledge-bases/{id}', { params: { path: { id } } }));
}
