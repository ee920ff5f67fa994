/**
 * Browser-facing protections for every response: a Content-Security-Policy ready for the web app
 * (same-origin scripts only, no plugins, no framing except by the origins an operator names — LMS
 * pages frame Merino for LTI), the other helmet headers, and CORS, which is closed unless an
 * operator lists the origins allowed to call the API from a browser. helmet works out the headers
 * once, at start-up: they are the same for every response, and running its middleware on every
 * request (parsing the policy again each time) was a few percent of a chat request's CPU.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import fastifyCors from '@fastify/cors';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { Settings } from '../config/settings.js';

/** The headers helmet's middleware sets, read by running it once against a response that only records them. */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
  };
  // helmet reads nothing of the request; the response only has to take its headers.
  const request = Object.create(null) as IncomingMessage;
  helmet(options)(request, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error !== undefined) throw error instanceof Error ? error : new Error('helmet refused its options');
  });
  return Object.fromEntries(headers);
}

export async function registerSecurityHeaders(
  app: FastifyInstance,
  settings: Pick<Settings, 'frameAncestors' | 'corsOrigins'>,
): Promise<void> {
  const headers = helmetHeaders({
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
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
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
