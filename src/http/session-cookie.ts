/**
 * The browser's session cookie: how it is written at login, cleared at logout and read back on
 * every request. The web app never sees a token (the cookie is HttpOnly), so scripts injected into
 * a page cannot steal the session.
 *
 * A small reader and writer of our own rather than a library: @fastify/cookie is not a dependency
 * and no cookie package is one either, and we need only one cookie whose value has a fixed,
 * URL-safe shape (`mrs_` and base64url), so nothing has to be decoded. The reader scans the header
 * once, splitting on `;` and the first `=` (no regular expression touches the header), and fails
 * closed on anything ambiguous: the same cookie twice, or a value that is not a session token.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { SESSION_TOKEN_PREFIX } from '../auth/tokens.js';

const SESSION_COOKIE_NAME = 'merino_session';
/** The cookie of a session an LTI launch opened inside a course's frame (partitioned, see setLtiSessionCookie). */
const LTI_SESSION_COOKIE_NAME = 'merino_lti_session';

/** What a session token is made of after its prefix (base64url); a value with anything else is not ours. */
const TOKEN_CHARACTERS = /^[A-Za-z0-9_-]{1,128}$/;

/** Every value the Cookie header holds for `name`; other cookies (other applications on the host) are ignored, however malformed. */
function cookieValues(header: string, name: string): string[] {
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals === -1 || pair.slice(0, equals).trim() !== name) continue;
    values.push(pair.slice(equals + 1).trim());
  }
  return values;
}

/**
 * The session token in the Cookie header, or undefined when there is none: `merino_session`, or
 * without it the `merino_lti_session` an LTI launch set (in a course's frame only that one is
 * sent; at the top level the account's own session wins).
 */
export function sessionCookieValue(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const name of [SESSION_COOKIE_NAME, LTI_SESSION_COOKIE_NAME]) {
    const values = cookieValues(header, name);
    if (values.length === 0) continue;
    // Two session cookies mean another site on a parent domain set one ("cookie tossing"); choosing
    // either could act as someone the browser's owner did not log in as.
    if (values.length > 1) throw new AppError('invalid_token', `The ${name} cookie must appear once.`);
    const [value = ''] = values;
    if (!value.startsWith(SESSION_TOKEN_PREFIX) || !TOKEN_CHARACTERS.test(value.slice(SESSION_TOKEN_PREFIX.length))) {
      throw new AppError('invalid_token', `The ${name} cookie does not hold a session.`);
    }
    return value;
  }
  return undefined;
}

/**
 * SameSite=Lax, not Strict: a link to Merino from an LMS page or an email opens the learner's
 * session (a top-level GET), while a cross-site form, fetch or frame never carries the cookie.
 * Strict would show the login page after every such link, and changes are checked by origin
 * (cross-site-request-check.ts) anyway. Secure whenever the request came over HTTPS, as Fastify
 * sees it (behind a proxy, only with TRUST_PROXY set, since X-Forwarded-Proto is believed then).
 */
function cookieAttributes(request: FastifyRequest, maximumAgeSeconds: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `Path=/; Max-Age=${maximumAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, lifetimeSeconds: number): void {
  reply.header('set-cookie', `${SESSION_COOKIE_NAME}=${token}; ${cookieAttributes(request, lifetimeSeconds)}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  const cleared = [`${SESSION_COOKIE_NAME}=; ${cookieAttributes(request, 0)}`];
  if (framable(request)) cleared.push(`${LTI_SESSION_COOKIE_NAME}=; ${ltiCookieAttributes(0)}`);
  reply.header('set-cookie', cleared);
}

function framable(request: FastifyRequest): boolean {
  return request.protocol === 'https' || request.hostname === 'localhost';
}

function ltiCookieAttributes(maximumAgeSeconds: number): string {
  return `Path=/; Max-Age=${maximumAgeSeconds}; HttpOnly; SameSite=None; Secure; Partitioned`;
}

/**
 * The cookie of a session an LTI launch opened. Learners often meet Merino inside a frame of
 * their course's page, on another site, where a SameSite=Lax cookie is neither stored nor sent,
 * and where browsers that block third-party cookies (Chromium's default now) store only
 * partitioned ones. So over HTTPS (as Fastify sees it: behind a proxy, with TRUST_PROXY) the
 * launch sets `merino_lti_session`, SameSite=None, Secure and Partitioned (CHIPS): kept for that
 * course site's frames only, under its own name so it never doubles the account's own
 * `merino_session`. Browsers accept Secure cookies from `http://localhost` too, so a local set-up
 * frames as well. Over plain HTTP elsewhere the ordinary Lax cookie is set: the launch then works
 * in a new window, never in a frame (see docs/lti.md).
 */
export function setLtiSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, lifetimeSeconds: number): void {
  if (!framable(request)) {
    setSessionCookie(request, reply, token, lifetimeSeconds);
    return;
  }
  reply.header('set-cookie', `${LTI_SESSION_COOKIE_NAME}=${token}; ${ltiCookieAttributes(lifetimeSeconds)}`);
}
