/** An assistant's own monthly cost limit and alert thresholds, with this month's spend (docs/quotas.md). */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { assistantQuotaInputSchema, assistantQuotaSchema } from '../../usage/assistant-quota-schemas.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

/** What the assistant quota routes use: nothing else of the service container reaches them. */
export type AssistantQuotaRouteServices = Pick<Services, 'assistantQuotas'>;

export const assistantQuotaRoutes: FastifyPluginAsync<AssistantQuotaRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/assistants/:id/quota',
    {
      schema: {
        tags: ['usage'],
        summary: "The assistant's monthly cost limit, alert thresholds, this month's spend and the thresholds it crossed",
        description: "For those who manage the assistant (its owner, its organization's admins); others who see it get 403, the rest 404.",
        params: idParametersSchema,
        response: { 200: assistantQuotaSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistantQuotas.view(callContext(request), request.params.id),
  );

  routes.put(
    '/api/assistants/:id/quota',
    {
      schema: {
        tags: ['usage'],
        summary: "Set the assistant's monthly cost limit and alert thresholds (cost_per_month_usd null removes the limit)",
        description:
          'Past the limit, chats with the assistant get 429 quota_exceeded until the UTC month ends; each threshold is audited (assistant.quota_alert) the first time it is crossed in a month.',
        params: idParametersSchema,
        body: assistantQuotaInputSchema,
        response: { 200: assistantQuotaSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistantQuotas.update(callContext(request), request.params.id, request.body),
  );
};
