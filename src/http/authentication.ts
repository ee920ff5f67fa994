/**
 * Authentication at the edge: reads `Authorization: Bearer <session token or API key>` and puts
 * the caller's Identity on the request. Routes registered under `requireAuthentication` never run
 * for an anonymous or invalid caller.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { AppError } from '../errors/app-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    identity: Identity | null;
  }
}

const BEARER_PATTERN = /^Bearer\s+(\S+)\s*$/i;

export function bearerValue(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = BEARER_PATTERN.exec(header);
  if (!match?.[1]) throw new AppError('unauthenticated', 'The Authorization header must be "Bearer <token>".');
  return match[1];
}

export function requireAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.addHook('onRequest', async (request) => {
    const bearer = bearerValue(request);
    if (bearer === undefined) throw new AppError('unauthenticated');
    request.identity = await authenticator.authenticate(bearer);
  });
}

export function callContext(request: FastifyRequest): CallContext {
  if (request.identity === null) throw new AppError('unauthenticated');
  return { identity: request.identity, requestId: request.id };
}
