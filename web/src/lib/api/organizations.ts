/**
 * The organizations of the server, for system admins (/api/organizations): list with member
 * counts, create, rename, suspend or reactivate, and delete an empty one.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type OrganizationListItem = JsonAnswer<'/api/organizations', 'get'>['items'][number];
export type OrganizationPage = JsonAnswer<'/api/organizations', 'get'>;

export async function listOrganizations(page: { limit: number; offset: number }): Promise<OrganizationPage> {
  return answerOf(apiClient.GET('/api/organizations', { params: { query: page } }));
}

export async function createOrganization(body: { name: string; slug: string }): Promise<void> {
  await answerOf(apiClient.POST('/api/organizations', { body }));
}

export async function changeOrganization(id: number, body: { name?: string; status?: 'active' | 'suspended' }): Promise<void> {
  await answerOf(apiClient.PATCH('/api/organizations/{id}', { params: { path: { id } }, body }));
}

export async function deleteOrganization(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/organizations/{id}', { params: { path: { id } } }));
}
