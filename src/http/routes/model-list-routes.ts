/**
 * The studio's Model list (`GET /api/models`): the providers the caller's organization may use,
 * each with the models it serves as the provider itself listed them, or why it is unavailable.
 */
import type { FastifyPluginAsync } from 'fastify';
import { modelListQuerySchema, modelListSchema } from '../../completions/model-list-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';

/** What the model list route uses: nothing else of the service container reaches it. */
export type ModelListRouteServices = Pick<Services, 'modelLists'>;

export const modelListRoutes: FastifyPluginAsync<ModelListRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/models',
    {
      schema: {
        tags: ['assistants'],
        summary: "The models each of the organization's providers serves, or why it is unavailable",
        querystring: modelListQuerySchema,
        response: { 200: modelListSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.modelLists.list(callContext(request)),
  );
};
