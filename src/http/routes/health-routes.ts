/** Liveness and readiness: `/healthz` checks the store; `/status` answers as LAMB does. */
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { AppError } from '../../errors/app-error.js';

export async function healthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get('/healthz', { schema: { tags: ['health'], summary: 'Health check (checks the database)' } }, async () => {
    try {
      await sql`select 1`.execute(services.store.db);
    } catch (error) {
      throw new AppError('store_unavailable', undefined, { cause: error });
    }
    return { status: 'ok', database: services.store.dialect };
  });
  app.get('/status', { schema: { tags: ['health'], summary: 'LAMB-compatible status' } }, async () => ({ status: true }));
}
