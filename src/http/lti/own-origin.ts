/** Merino's own origin as the platform or browser addressed it, for the URLs it hands out and the Origin checks it makes. */
import type { FastifyRequest } from 'fastify';

/** Behind a proxy, the scheme and host it forwarded, per TRUST_PROXY. */
export function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
