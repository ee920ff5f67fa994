/** An assistant's insights for whoever manages it, JSON or CSV (docs/assistant-insights.md). */
import type { FastifyPluginAsync } from 'fastify';
import { insightsCsv } from '../../insights/insights-csv.js';
import { insightsQuerySchema, insightsSchema } from '../../insights/insights-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

/** What the insights routes use: nothing else of the service container reaches them. */
export type InsightsRouteServices = Pick<Services, 'insights'>;

export const insightsRoutes: FastifyPluginAsync<InsightsRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/assistants/:id/insights',
    {
      schema: {
        tags: ['assistants'],
        summary:
          'How learners used your assistant over a range of days: chats, learners (counted), timeline, answer times, cost, feedback, tools, sources, topics (format=csv for the timeline as CSV)',
        params: idParametersSchema,
        querystring: insightsQuerySchema,
        response: {
          200: {
            description: 'The insights: JSON, or the timeline as CSV with format=csv or Accept: text/csv',
            content: { 'application/json': { schema: insightsSchema }, 'text/csv': { schema: { type: 'string' } } },
          },
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const insights = await services.insights.ofAssistant(callContext(request), request.params.id, request.query);
      const wantsCsv =
        request.query.format === 'csv' || (request.query.format === undefined && /\btext\/csv\b/i.test(request.headers.accept ?? ''));
      if (!wantsCsv) return insights;
      return reply
        .type('text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="assistant-${insights.assistant_id}-insights-${insights.from}-${insights.to}.csv"`,
        )
        .send(insightsCsv(insights));
    },
  );
};
