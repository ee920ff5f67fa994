/**
 * Liveness and readiness: `/healthz` asks the health service whether the store answers; `/readyz`
 * also fails while the process drains to stop, so load balancers send it nothing new; `/status`
 * answers as LAMB does.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { healthReportSchema, lambStatusSchema } from '../../health/health-schemas.js';
import { errorResponseSchema } from '../schemas.js';

/** What the health routes use: nothing else of the service container reaches them. */
export type HealthRouteServices = Pick<Services, 'health'>;

export const healthRoutes: FastifyPluginAsync<HealthRouteServices> = async (app, services) => {
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
};
