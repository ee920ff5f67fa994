/**
 * The LTI administration API of an organization, for its admins: LTI 1.1 consumers (the secret is
 * answered once, at creation), LTI 1.3 platform registrations, and the tool's URLs a platform's
 * administrator pastes. Teachers' JSON view of an activity (dashboard, binding) lives here too.
 */
import type { FastifyPluginAsync } from 'fastify';
import { activityDashboardSchema, activityViewSchema } from '../../lti/lti-activity-schemas.js';
import {
  consumerPatchSchema,
  consumerViewSchema,
  createdConsumerSchema,
  newConsumerSchema,
  organizationFilter,
  platformBodySchema,
  platformViewSchema,
  toolUrlsSchema,
} from '../../lti/lti-registration-schemas.js';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';
import { idSchema } from '../../validation/shape-fragments.js';
import { pageSchema } from '../../validation/shape-fragments.js';
import { ownOrigin } from '../lti/own-origin.js';

const TAGS = ['lti'];
/** What the LTI administration routes use: nothing else of the service container reaches them. */
export type LtiAdminRouteServices = Pick<Services, 'ltiRegistrations' | 'ltiActivities' | 'settings'>;

export const ltiAdminRoutes: FastifyPluginAsync<LtiAdminRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);
  const organizationPageQuery = pageBoundsQuerySchema(services.settings.pageSizeMaximum, organizationFilter);

  routes.get(
    '/api/lti/tool',
    {
      schema: {
        tags: TAGS,
        summary: "The tool's URLs for a platform's administrator",
        response: { 200: toolUrlsSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      callContext(request);
      const origin = ownOrigin(request);
      return {
        launch_url: `${origin}/lti/launch`,
        login_url: `${origin}/lti/1.3/login`,
        redirect_uri: `${origin}/lti/1.3/launch`,
        jwks_url: `${origin}/lti/1.3/jwks`,
        deep_linking_url: `${origin}/lti/1.3/launch`,
      };
    },
  );

  routes.get(
    '/api/lti/consumers',
    {
      schema: {
        tags: TAGS,
        summary: "The organization's LTI 1.1 consumers",
        querystring: organizationPageQuery,
        response: { 200: pageSchema('A page of LTI 1.1 consumers, oldest first', consumerViewSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.ltiRegistrations.listConsumers(callContext(request), request.query),
  );

  routes.post(
    '/api/lti/consumers',
    {
      schema: {
        tags: TAGS,
        summary: 'Create an LTI 1.1 consumer; its secret is answered this once',
        body: newConsumerSchema,
        response: {
          201: createdConsumerSchema,
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => reply.status(201).send(await services.ltiRegistrations.createConsumer(callContext(request), request.body)),
  );

  routes.patch(
    '/api/lti/consumers/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Rename an LTI 1.1 consumer or change the origins that may frame its launches',
        params: idParametersSchema,
        body: consumerPatchSchema,
        response: { 200: consumerViewSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.ltiRegistrations.updateConsumer(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/lti/consumers/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Revoke an LTI 1.1 consumer; its launches are refused from then on',
        params: idParametersSchema,
        response: { 204: noContentResponse('Revoked'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.ltiRegistrations.revokeConsumer(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/lti/platforms',
    {
      schema: {
        tags: TAGS,
        summary: "The organization's LTI 1.3 platforms",
        querystring: organizationPageQuery,
        response: { 200: pageSchema('A page of LTI 1.3 platforms, oldest first', platformViewSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.ltiRegistrations.listPlatforms(callContext(request), request.query),
  );

  routes.post(
    '/api/lti/platforms',
    {
      schema: {
        tags: TAGS,
        summary: 'Register an LTI 1.3 platform',
        body: platformBodySchema,
        response: { 201: platformViewSchema, 409: commonErrorResponses[404], ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.ltiRegistrations.createPlatform(callContext(request), request.body)),
  );

  routes.put(
    '/api/lti/platforms/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Replace an LTI 1.3 platform registration',
        params: idParametersSchema,
        body: platformBodySchema,
        response: { 200: platformViewSchema, 409: commonErrorResponses[404], ...commonErrorResponses },
      },
    },
    async (request) => services.ltiRegistrations.updatePlatform(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/lti/platforms/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete an LTI 1.3 platform registration',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.ltiRegistrations.deletePlatform(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/lti/activities/:id',
    {
      schema: {
        tags: TAGS,
        summary: "An LTI activity's dashboard: learners who opened it, their last visit, usage",
        params: idParametersSchema,
        response: { 200: activityDashboardSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.ltiActivities.dashboard(callContext(request), request.params.id),
  );

  routes.put(
    '/api/lti/activities/:id/assistant',
    {
      schema: {
        tags: TAGS,
        summary: 'Bind an LTI activity to an assistant the teacher may use',
        params: idParametersSchema,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['assistant_id'],
          properties: { assistant_id: idSchema },
        },
        response: { 200: activityViewSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.ltiActivities.bind(callContext(request), request.params.id, request.body.assistant_id),
  );
};
