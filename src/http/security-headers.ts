/**
 * Browser-facing protections for every response: a Content-Security-Policy ready for the web app
 * (same-origin scripts only, no plugins, no framing except by the origins an operator names — LMS
 * pages frame Merino for LTI), the other helmet headers, and CORS, which is closed unless an
 * operator lists the origins allowed to call the API from a browser.
 */
import fastifyCors from '@fastify/cors';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
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
