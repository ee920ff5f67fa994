/**
 * The cookie that binds an LTI 1.3 login to the browser that started it (see
 * src/lti/lti-browser-binding.ts). One cookie per login, named after its state, so that several
 * activities launching at once on one course page do not overwrite each other's. It is sent only
 * to the launch URL (Path), lives as long as the login state, and is set `SameSite=None; Secure;
 * Partitioned` because the launch is a cross-site form post, often inside the course's frame:
 * browsers that block third-party cookies still keep a partitioned one for that course site's
 * frames. Browsers take Secure cookies from `http://localhost` too; over plain HTTP elsewhere they
 * drop it, and the launch then works only through the platform's storage (docs/lti.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

const COOKIE_PREFIX = 'merino_lti_state_';
export const LAUNCH_PATH = '/lti/1.3/launch';
/** A state as Merino makes them (base64url); anything else names no cookie of ours. */
const STATE_CHARACTERS = /^[A-Za-z0-9_-]{1,64}$/;
const SECRET_CHARACTERS = /^[A-Za-z0-9_-]{1,128}$/;

function attributes(maximumAgeSeconds: number): string {
  return `Path=${LAUNCH_PATH}; Max-Age=${maximumAgeSeconds}; HttpOnly; SameSite=None; Secure; Partitioned`;
}

export function setLtiStateCookie(reply: FastifyReply, state: string, secret: string, lifetimeSeconds: number): void {
  reply.header('set-cookie', `${COOKIE_PREFIX}${state}=${secret}; ${attributes(lifetimeSeconds)}`);
}

export function clearLtiStateCookie(reply: FastifyReply, state: string | undefined): void {
  if (state === undefined || !STATE_CHARACTERS.test(state)) return;
  reply.header('set-cookie', `${COOKIE_PREFIX}${state}=; ${attributes(0)}`);
}

/**
 * The login's secret this browser holds for the state, or undefined. The same cookie twice (one
 * tossed in by a sibling site) or a value that is not a secret of ours counts as none: the launch
 * is then refused rather than guessed.
 */
export function ltiStateCookieValue(request: FastifyRequest, state: string | undefined): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || state === undefined || !STATE_CHARACTERS.test(state)) return undefined;
  const name = `${COOKIE_PREFIX}${state}`;
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals !== -1 && pair.slice(0, equals).trim() === name) values.push(pair.slice(equals + 1).trim());
  }
  const [value] = values;
  return values.length === 1 && value !== undefined && SECRET_CHARACTERS.test(value) ? value : undefined;
}
