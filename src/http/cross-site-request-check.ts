/**
 * CSRF protection for requests the session cookie authenticates. A browser attaches the cookie by
 * itself, so a page on another site could make it change things on the user's behalf; SameSite=Lax
 * stops most of that, and this check stops the rest (older browsers, a sibling subdomain, which
 * counts as the same site). A change (POST, PUT, PATCH, DELETE) is let through only when the
 * browser says it comes from Merino's own origin or one of CORS_ORIGINS: by its Origin header, or
 * when it sent none, by the origin of its Referer. A request that says neither is refused, as is
 * `Origin: null` (sandboxed frames, some redirects), which names no origin to trust.
 *
 * Bearer tokens and API keys are not checked: a browser never attaches them on its own, so a
 * request carrying one was built by a program that holds the credential.
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin of a URL-like header value, or undefined when it is not one (or is `null`). */
function originOf(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const { origin, protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:' ? origin : undefined;
}

/** Merino's own origin as the browser addressed it (with TRUST_PROXY, as the proxy says it was addressed). */
function ownOrigin(request: FastifyRequest): string | undefined {
  return originOf(`${request.protocol}://${request.host}`);
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Throws `csrf_rejected` unless a cookie-authenticated change comes from an origin Merino trusts. */
export function checkCookieRequestOrigin(request: FastifyRequest, allowedOrigins: readonly string[]): void {
  if (SAFE_METHODS.has(request.method)) return;
  const originHeader = singleHeader(request.headers.origin);
  const refererHeader = singleHeader(request.headers.referer);
  const claimed = originHeader ?? refererHeader;
  if (claimed === undefined) {
    throw new AppError('csrf_rejected', 'A change made with the session cookie must carry an Origin or Referer header.');
  }
  const origin = originOf(claimed);
  const own = ownOrigin(request);
  if (origin === undefined || (origin !== own && !allowedOrigins.some((allowed) => originOf(allowed) === origin))) {
    throw new AppError(
      'csrf_rejected',
      `A change made with the session cookie must come from this server's own origin or one of CORS_ORIGINS; its ${originHeader === undefined ? 'Referer' : 'Origin'} names another.`,
    );
  }
}
