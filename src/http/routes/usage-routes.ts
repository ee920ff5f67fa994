/** Usage reports (`GET /api/usage`, JSON or CSV) and an organization's model prices (docs/usage.md). */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { usageCsv } from '../../usage/usage-csv.js';
import { modelPricesInputSchema, modelPricesSchema, usageQuerySchema, usageReportSchema } from '../../usage/usage-schemas.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

/** What the usage routes use: nothing else of the service container reaches them. */
export type UsageRouteServices = Pick<Services, 'usage'>;

export const usageRoutes: FastifyPluginAsync<UsageRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/usage',
    {
      schema: {
        tags: ['usage'],
        summary: 'Requests, tokens and cost over a range of days, grouped by day, user, assistant or model (format=csv for CSV)',
        querystring: usageQuerySchema,
        response: {
          200: {
            description: 'The report: JSON, or CSV with format=csv or Accept: text/csv',
            content: { 'application/json': { schema: usageReportSchema }, 'text/csv': { schema: { type: 'string' } } },
          },
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const report = await services.usage.report(callContext(request), request.query);
      const wantsCsv =
        request.query.format === 'csv' || (request.query.format === undefined && /\btext\/csv\b/i.test(request.headers.accept ?? ''));
      if (!wantsCsv) return report;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="usage-${report.from}-${report.to}-by-${report.group_by}.csv"`)
        .send(usageCsv(report));
    },
  );

  routes.get(
    '/api/organizations/:id/model-prices',
    {
      schema: {
        tags: ['usage'],
        summary: "The organization's model prices: its own, and the default list prices for models it did not price",
        params: idParametersSchema,
        response: { 200: modelPricesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.usage.modelPrices(callContext(request), request.params.id),
  );

  routes.put(
    '/api/organizations/:id/model-prices',
    {
      schema: {
        tags: ['usage'],
        summary: "Replace the organization's own model prices (usage already counted keeps its price)",
        params: idParametersSchema,
        body: modelPricesInputSchema,
        response: { 200: modelPricesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.usage.replaceModelPrices(callContext(request), request.params.id, request.body),
  );
};
