/**
 * The session area of the API: who the session cookie belongs to (/api/me), signing in and
 * signing out (/api/auth). Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

/**
 * The signed-in user as GET /api/me answers: the account, the credential used, the permission
 * module's answers about the user as a whole, and for a session an LTI launch opened, where
 * "Back to course" leads (null when the platform gave no address).
 */
export type CurrentUser = JsonAnswer<'/api/me', 'get'>;

/** The signed-in user; a 401 (nobody signed in) is thrown to the caller, not sent to the login page. */
export async function readCurrentUser(): Promise<CurrentUser> {
  return answerOf(apiClient.GET('/api/me'), { allowUnauthenticated: true });
}

/** Signs in; the browser keeps the session cookie the answer sets (the body's token is for programs). */
export async function signIn(email: string, password: string): Promise<void> {
  await answerOf(apiClient.POST('/api/auth/login', { body: { email, password } }), { allowUnauthenticated: true });
}

export async function signOut(): Promise<void> {
  await answerOf(apiClient.POST('/api/auth/logout'), { allowUnauthenticated: true });
}
