/**
 * Browser-facing protections for every response: a Content-Security-Policy ready for the web app
 * (same-origin scripts only, no plugins, no framing except by the origins an operator names — LMS
 * pages frame Merino for LTI), the other helmet headers, and CORS, which is closed unless an
 * operator lists the origins allowed to call the API from a browser.
 */
import fastifyCors from '@fastify/cors';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Settings } from '../config/settings.js';

export async function registerSecurityHeaders(
  app: FastifyInstance,
  settings: Pick<Settings, 'frameAncestors' | 'corsOrigins'>,
): Promise<void> {
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Svelte transitions and Swagger UI set inline styles; styles cannot run code.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: settings.frameAncestors,
      },
    },
    // frame-ancestors above decides framing; X-Frame-Options cannot name an LMS origin and would contradict it.
    frameguard: false,
  });
  await app.register(fastifyCors, {
    origin: settings.corsOrigins.length === 0 ? false : settings.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: ['x-request-id', 'x-trace-id', 'retry-after'],
    maxAge: 600,
  });
}

/**
 * Adds sources to one directive of the response's Content-Security-Policy: the origins an LTI
 * consumer or platform names to `frame-ancestors` of pages served to its launched sessions
 * (`*` only for pages that hold nothing to click on, such as a refused launch's explanation), or
 * the platform's return URL to `form-action` of the page that posts a deep-linking answer back.
 */
export function widenContentSecurityPolicy(
  reply: FastifyReply,
  directiveName: 'frame-ancestors' | 'form-action',
  sources: readonly string[],
): void {
  if (sources.length === 0) return;
  const policy = reply.getHeader('content-security-policy');
  if (typeof policy !== 'string') return;
  const widened = policy.split(';').map((directive) => {
    const trimmed = directive.trim();
    if (!trimmed.startsWith(`${directiveName} `)) return trimmed;
    const current = trimmed
      .slice(directiveName.length)
      .trim()
      .split(' ')
      .filter((source) => source !== "'none'" && source !== '');
    return `${directiveName} ${[...new Set([...current, ...sources])].join(' ')}`;
  });
  reply.header('content-security-policy', widened.join(';'));
}
