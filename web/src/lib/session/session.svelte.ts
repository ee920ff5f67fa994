/**
 * Who is signed in, as `/api/me` says. The page never sees the session token (it lives in the
 * HttpOnly cookie); it only learns whether the cookie is good and whose it is.
 */
import { api } from '$lib/api/client';
import { ApiError } from '$lib/api/api-error';

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

const state = $state<{ user: CurrentUser | undefined; checked: boolean }>({ user: undefined, checked: false });

export function currentUser(): CurrentUser | undefined {
  return state.user;
}

/**
 * How the header names the signed-in person: their name, or their email when they have none. An
 * LTI launch without an email gets an address of its own under `.invalid`, which means nothing to
 * the learner, so it is never shown.
 */
export function displayNameOf(user: Pick<CurrentUser, 'name' | 'email'>): { label: string; email: string | undefined } {
  const email = user.email.endsWith('.invalid') ? undefined : user.email;
  const name = user.name.trim();
  return { label: name !== '' ? name : (email ?? ''), email };
}

export function sessionChecked(): boolean {
  return state.checked;
}

/** Asks the server who the cookie belongs to; undefined when nobody is signed in. */
export async function refreshSession(): Promise<CurrentUser | undefined> {
  try {
    state.user = await api<CurrentUser>('/api/me', { allowUnauthenticated: true });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    state.user = undefined;
  } finally {
    state.checked = true;
  }
  return state.user;
}

export async function logIn(email: string, password: string): Promise<void> {
  // The body's token is for programs; the browser keeps the cookie the same answer sets.
  await api('/api/auth/login', { method: 'POST', body: { email, password }, allowUnauthenticated: true });
  // The login answer holds the bare user; /api/me adds what the user may do (capabilities), so it alone is kept.
  state.user = await api<CurrentUser>('/api/me');
  state.checked = true;
}

export async function logOut(): Promise<void> {
  try {
    await api('/api/auth/logout', { method: 'POST', allowUnauthenticated: true });
  } finally {
    state.user = undefined;
  }
}
