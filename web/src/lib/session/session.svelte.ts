/**
 * Who is signed in, as the API's `me` answer says. The page never sees the session token (it lives in the
 * HttpOnly cookie); it only learns whether the cookie is good and whose it is.
 */
import { ApiError } from '$lib/api/api-error';
import { readCurrentUser, signIn, signOut, type CurrentUser } from '$lib/api/session';

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

/**
 * Where someone lands when they asked for no page: those who may build assistants on the
 * assistant list, everyone else (learners) on the chat home, where what they came for is.
 */
export function homePathOf(user: Pick<CurrentUser, 'capabilities'> | undefined): string {
  return user?.capabilities.create_assistants ? '/assistants' : '/chat';
}

export function sessionChecked(): boolean {
  return state.checked;
}

/** Asks the server who the cookie belongs to; undefined when nobody is signed in. */
export async function refreshSession(): Promise<CurrentUser | undefined> {
  try {
    state.user = await readCurrentUser();
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
  await signIn(email, password);
  // The login answer holds the bare user; the me answer adds what the user may do (capabilities), so it alone is kept.
  state.user = await readCurrentUser();
  state.checked = true;
}

export async function logOut(): Promise<void> {
  try {
    await signOut();
  } finally {
    state.user = undefined;
  }
}
