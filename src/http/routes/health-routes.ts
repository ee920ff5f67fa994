/**
 * Liveness and readiness: `/healthz` asks the health service whether the store answers; `/readyz`
 * also fails while the process drains to stop, so load balancers send it nothing new; `/status`
 * answers as LAMB does.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { errorResponseSchema } from '../schemas.js';

const healthReportSchema = {
  type: 'object',
  description: 'The store answered',
  properties: {
    status: { type: 'string', enum: ['ok'] },
    database: { type: 'string', enum: ['sqlite', 'postgres'], description: 'which store this process uses' },
  },
  required: ['status', 'database'],
} as const;

const lambStatusSchema = {
  type: 'object',
  description: 'The server is up (LAMB-compatible)',
  properties: { status: { type: 'boolean' } },
  required: ['status'],
} as const;

export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'Health check (checks the database)',
        response: { 200: healthReportSchema, 503: errorResponseSchema },
      },
    },
    async () => services.health.check(),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness for load balancers: 503 while the database is unreachable or while this process drains to stop',
        response: { 200: healthReportSchema, 503: errorResponseSchema },
      },
    },
    async () => services.health.ready(),
  );
  app.get(
    '/status',
    { schema: { tags: ['health'], summary: 'LAMB-compatible status', response: { 200: lambStatusSchema } } },
    async () => ({ status: true }),
  );
}
