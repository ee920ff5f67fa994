/**
 * The browser's part of an LTI 1.3 login, for tests over plain HTTP: asks Merino's login URL as
 * the platform would send the browser there, keeps the state cookie Merino sets (as a browser
 * would), follows the redirect to the platform simulator's authorization endpoint and reads the
 * form_post it answers. `submitLaunch` posts that form back to Merino, with the cookie unless told
 * otherwise, as the browser that started the login would.
 */
import { expect } from 'vitest';
import { formIn, type FakeLtiPlatform, type FormPost, type NextLaunch } from '../fakes/lti-platform.js';

/** The platform's form_post for one login, and the state cookie Merino gave the browser (`name=value`). */
export interface PlatformLogin extends FormPost {
  cookie: string;
}

export interface LaunchAnswer {
  status: number;
  location: string | null;
  setCookies: string[];
  /** The session cookie the launch set (`name=value`), if any. */
  sessionCookie: string | undefined;
  text: string;
}

export async function loginThroughPlatform(
  toolBaseUrl: string,
  platform: FakeLtiPlatform,
  next: NextLaunch,
  extraParameters: Record<string, string> = {},
): Promise<PlatformLogin> {
  platform.next = next;
  const login = new URL(`${toolBaseUrl}/lti/1.3/login`);
  login.search = new URLSearchParams({
    iss: platform.issuer,
    login_hint: 'user-1',
    target_link_uri: `${toolBaseUrl}/lti/1.3/launch`,
    client_id: platform.clientId,
    ...extraParameters,
  }).toString();
  const redirected = await fetch(login, { redirect: 'manual' });
  const stateCookie = redirected.headers.getSetCookie().find((cookie) => cookie.startsWith('merino_lti_state_'));
  const location = await platformLocation(redirected);
  expect(location.startsWith(platform.authUrl)).toBe(true);
  const authPage = await fetch(location);
  expect(authPage.status).toBe(200);
  return { ...formIn(await authPage.text()), cookie: stateCookie?.split(';')[0] ?? '' };
}

/** Where the login sends the browser: its redirect, or with platform storage offered, where its page goes on to once the secret is stored. */
async function platformLocation(response: Response): Promise<string> {
  if (response.status === 302) return response.headers.get('location')!;
  expect(response.status).toBe(200);
  const next = /data-lti-next="([^"]*)"/.exec(await response.text())?.[1] ?? '';
  return next.replace(/&amp;/g, '&');
}

/** Posts the platform's form to Merino; with `withoutCookie`, as a browser that never made the login request. */
export async function submitLaunch(
  post: FormPost & { cookie?: string },
  options: { withoutCookie?: boolean; headers?: Record<string, string> } = {},
): Promise<LaunchAnswer> {
  const cookie: Record<string, string> = options.withoutCookie === true || !post.cookie ? {} : { cookie: post.cookie };
  const response = await fetch(post.action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookie, ...options.headers },
    body: new URLSearchParams(post.fields).toString(),
  });
  const setCookies = response.headers.getSetCookie();
  const session = setCookies.find((value) => /^merino_(lti_)?session=mrs_/.test(value));
  return {
    status: response.status,
    location: response.headers.get('location'),
    setCookies,
    sessionCookie: session?.split(';')[0],
    text: await response.text(),
  };
}
