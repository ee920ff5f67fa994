/**
 * People administration (/api/users): a filtered page of the accounts the caller administers,
 * create one, change role, disable or enable, move to another organization (system admins), and
 * reset a password to a one-time password shown once.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

export type UserPage = JsonAnswer<'/api/users', 'get'>;
export type AdministeredUser = UserPage['items'][number];
export type NewUser = RequestBody<'/api/users', 'post'>;
export type UserChange = RequestBody<'/api/users/{id}', 'patch'>;
export type PasswordReset = JsonAnswer<'/api/users/{id}/password-reset', 'post'>;
export type Role = 'admin' | 'creator' | 'learner';

export interface UserFilter {
  q?: string | undefined;
  role?: Role | undefined;
  status?: 'active' | 'disabled' | undefined;
  organization_id?: number | undefined;
}

export async function listUsers(filter: UserFilter, page: { limit: number; offset: number }): Promise<UserPage> {
  return answerOf(apiClient.GET('/api/users', { params: { query: { ...filter, ...page } } }));
}

export async function createUser(body: NewUser): Promise<AdministeredUser> {
  return answerOf(apiClient.POST('/api/users', { body }));
}

export async function changeUser(id: number, body: UserChange): Promise<AdministeredUser> {
  return answerOf(apiClient.PATCH('/api/users/{id}', { params: { path: { id } }, body }));
}

/** Answers the one-time password, shown this once. */
export async function resetPassword(id: number): Promise<PasswordReset> {
  return answerOf(apiClient.POST('/api/users/{id}/password-reset', { params: { path: { id } } }));
}
