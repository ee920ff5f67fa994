/**
 * Authentication at the edge: reads `Authorization: Bearer <session token or API key>`, or when a
 * request has no Authorization header the browser's session cookie, and puts the caller's Identity
 * on the request. Routes registered under `requireAuthentication` never run for an anonymous or
 * invalid caller, nor for a cookie-authenticated change from another origin (CSRF).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { requireOwnPasswordChosen } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { checkCookieRequestOrigin } from './cross-site-request-check.js';
import { sessionCookieValue } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | null;
  }
}

/** The routes someone holding a one-time password may still call: choosing a new one, leaving, and seeing who they are. */
const ROUTES_BEFORE_PASSWORD_CHANGE: ReadonlySet<string> = new Set(['/api/auth/password', '/api/auth/logout', '/api/me']);

const BEARER_PATTERN = /^Bearer\s+(\S+)\s*$/i;

export function bearerValue(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = BEARER_PATTERN.exec(header);
  if (!match?.[1]) throw new AppError('unauthenticated', 'The Authorization header must be "Bearer <token>".');
  return match[1];
}

/**
 * A header wins over the cookie: a program that sends its own credential means that one, and is
 * not subject to the origin check, which exists only because browsers attach cookies by themselves.
 * The origin is checked before the session is looked up, so a forged request costs no store read.
 */
export function requireAuthentication(app: FastifyInstance, authenticator: Authenticator, allowedOrigins: readonly string[]): void {
  app.addHook('onRequest', async (request) => {
    request.identity = await identityOfRequest(request, authenticator, allowedOrigins);
    if (!ROUTES_BEFORE_PASSWORD_CHANGE.has(request.routeOptions.url ?? '')) requireOwnPasswordChosen(request.identity);
  });
}

export async function identityOfRequest(
  request: FastifyRequest,
  authenticator: Authenticator,
  allowedOrigins: readonly string[],
): Promise<Identity> {
  const bearer = bearerValue(request);
  if (bearer !== undefined) return authenticator.authenticate(bearer);
  const cookie = sessionCookieValue(request);
  if (cookie === undefined) throw new AppError('unauthenticated');
  checkCookieRequestOrigin(request, allowedOrigins);
  return authenticator.authenticate(cookie);
}

export function callContext(request: FastifyRequest): CallContext {
  if (request.identity === null) throw new AppError('unauthenticated');
  return { identity: request.identity, requestId: request.id };
}
