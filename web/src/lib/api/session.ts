/**
 * The session area of the API: who the session cookie belongs to (/api/me), signing in and
 * signing out (/api/auth). Every call goes through the typed client.
 */
import { answerOf, apiClient, sent } from './client';

export interface CurrentUser {
  id: number;
  email: string;
  name: string;
  organization_id: number;
  role: string;
  is_system_admin: boolean;
  /** The permission module's answers about the user as a whole (GET /api/me). */
  capabilities: { create_assistants: boolean; manage_lti: boolean };
  /** Present for a session an LTI launch opened: where "Back to course" leads (null when the platform gave no address). */
  lti?: { activity_id: number; return_url: string | null; instructor: boolean };
}

/** The signed-in user; a 401 (nobody signed in) is thrown to the caller, not sent to the login page. */
export async function readCurrentUser(): Promise<CurrentUser> {
  return sent(await answerOf(apiClient.GET('/api/me'), { allowUnauthenticated: true }));
}

/** Signs in; the browser keeps the session cookie the answer sets (the body's token is for programs). */
export async function signIn(email: string, password: string): Promise<void> {
  await answerOf(apiClient.POST('/api/auth/login', { body: { email, password } }), { allowUnauthenticated: true });
}

export async function signOut(): Promise<void> {
  await answerOf(apiClient.POST('/api/auth/logout'), { allowUnauthenticated: true });
}
