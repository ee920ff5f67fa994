/** The audit log, for administrators: who did what to which object, filtered and paged (docs/audit-log.md). */
import type { FastifyPluginAsync } from 'fastify';
import { auditEntryViewSchema, auditQuerySchema } from '../../auth/audit-schemas.js';
import type { Services } from '../../services.js';
import { pageSchema } from '../../validation/shape-fragments.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';

/** What the audit routes use: nothing else of the service container reaches them. */
export type AuditRouteServices = Pick<Services, 'auditLog' | 'settings'>;

export const auditRoutes: FastifyPluginAsync<AuditRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/audit',
    {
      schema: {
        tags: ['audit'],
        summary: "The audit log, newest first: an organization's admins read their organization's entries, system admins every entry",
        querystring: auditQuerySchema(services.settings.pageSizeMaximum),
        response: { 200: pageSchema('A page of audit entries, newest first', auditEntryViewSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.auditLog.list(callContext(request), request.query),
  );
};
