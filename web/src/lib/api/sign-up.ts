/**
 * Self sign-up (docs/sign-up.md): makes an account with an organization's sign-up key; the answer
 * sets the HttpOnly session cookie, so the new person is signed in. Through the typed client only.
 */
import { answerOf, apiClient } from './client';
import type { RequestBody } from './request-body';

export type SignUpDetails = RequestBody<'/api/auth/sign-up', 'post'>;

export async function signUp(details: SignUpDetails): Promise<void> {
  await answerOf(apiClient.POST('/api/auth/sign-up', { body: details }), { allowUnauthenticated: true });
}
