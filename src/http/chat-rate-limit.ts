/**
 * Chat requests are limited per user and per API key before any work is done for them (DESIGN
 * §9): model calls cost money and time, so one account or one leaked key cannot use up a
 * provider's quota for everyone. Counted in the store, so the limits hold across processes.
 */
import type { FastifyInstance } from 'fastify';
import type { RateLimiter } from '../auth/rate-limiter.js';

/** Every route that runs the completion pipeline. */
const CHAT_ROUTES: ReadonlySet<string> = new Set([
  '/v1/chat/completions',
  '/lamb/v1/completions',
  '/api/chats/:id/messages',
  '/api/chats/:id/regenerate',
]);

/** Register inside the authenticated scope, after requireAuthentication, so the caller is known. */
export function limitChatRequests(app: FastifyInstance, rateLimiter: RateLimiter): void {
  app.addHook('onRequest', async (request) => {
    if (request.identity === null || request.method !== 'POST' || !CHAT_ROUTES.has(request.routeOptions.url ?? '')) return;
    await rateLimiter.admitChatRequest(request.identity);
  });
}
