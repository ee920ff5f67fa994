/**
 * The LTI administration API of an organization, for its admins: LTI 1.1 consumers (the secret is
 * answered once, at creation), LTI 1.3 platform registrations, and the tool's URLs a platform's
 * administrator pastes. Teachers' JSON view of an activity (dashboard, binding) lives here too.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';
import { pageSchema, timestampSchema } from '../../validation/shape-fragments.js';
import { ownOrigin } from './lti-launch-routes.js';

const TAGS = ['lti'];
const originListSchema = {
  type: 'array',
  maxItems: 20,
  items: { type: 'string', minLength: 1, maxLength: 300 },
  description: 'origins (https://lms.example.edu) allowed to show Merino in a frame after launches from here',
} as const;

const organizationFilter = {
  organization_id: { type: 'integer', minimum: 1, maximum: 2_147_483_647, description: "default: the caller's organization" },
} as const;

const consumerProperties = {
  id: { type: 'integer' },
  organization_id: { type: 'integer' },
  name: { type: 'string' },
  consumer_key: { type: 'string' },
  frame_origins: { type: 'array', items: { type: 'string' } },
  created_at: timestampSchema,
} as const;
const consumerSchema = { type: 'object', description: 'An LTI 1.1 consumer (never its secret)', properties: consumerProperties } as const;

const platformProperties = {
  id: { type: 'integer' },
  organization_id: { type: 'integer' },
  issuer: { type: 'string' },
  client_id: { type: 'string' },
  deployment_ids: { type: 'array', items: { type: 'string' } },
  auth_login_url: { type: 'string' },
  auth_token_url: { type: 'string' },
  jwks_url: { type: ['string', 'null'] },
  public_key: { type: ['string', 'null'] },
  frame_origins: { type: 'array', items: { type: 'string' } },
  created_at: timestampSchema,
  updated_at: timestampSchema,
} as const;
const platformSchema = { type: 'object', description: 'An LTI 1.3 platform registration', properties: platformProperties } as const;

const urlText = { type: 'string', minLength: 1, maxLength: 2000 } as const;
const platformBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['issuer', 'client_id', 'deployment_ids', 'auth_login_url', 'auth_token_url'],
  properties: {
    organization_id: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
    issuer: { type: 'string', minLength: 1, maxLength: 500, description: "the platform's issuer (iss), e.g. https://moodle.example.edu" },
    client_id: { type: 'string', minLength: 1, maxLength: 255, description: 'the client id the platform gave Merino' },
    deployment_ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 255 } },
    auth_login_url: { ...urlText, description: "the platform's OIDC authentication request URL" },
    auth_token_url: { ...urlText, description: "the platform's OAuth2 access token URL" },
    jwks_url: { ...urlText, type: ['string', 'null'], description: "the platform's public keyset URL (or give public_key)" },
    public_key: { type: ['string', 'null'], minLength: 1, maxLength: 10_000, description: 'a PEM public key instead of jwks_url' },
    frame_origins: originListSchema,
  },
} as const;

const toolSchema = {
  type: 'object',
  description: "The URLs a learning platform's administrator pastes to add Merino",
  properties: {
    launch_url: { type: 'string', description: 'LTI 1.1 launch URL (Moodle: Tool URL)' },
    login_url: { type: 'string', description: 'LTI 1.3 initiate login URL' },
    redirect_uri: { type: 'string', description: 'LTI 1.3 redirection URI, also the target link and deep-linking URL' },
    jwks_url: { type: 'string', description: "LTI 1.3 tool's public keyset URL" },
    deep_linking_url: { type: 'string', description: 'LTI 1.3 content selection (deep linking) URL' },
  },
} as const;

const activitySchema = {
  type: 'object',
  description: 'An LTI activity (resource link) and the assistant it opens',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, assistant_id: { type: ['integer', 'null'] } },
} as const;

const dashboardSchema = {
  type: 'object',
  description: "An LTI activity's learners and usage, for its teachers",
  properties: {
    activity: activitySchema,
    learners: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, launches: { type: 'integer' }, last_visit: timestampSchema } },
    },
    usage: {
      type: 'object',
      properties: {
        requests: { type: 'integer' },
        prompt_tokens: { type: 'integer' },
        completion_tokens: { type: 'integer' },
        chats: { type: 'integer', description: "chats the activity's learners keep with its assistant" },
        messages: { type: 'integer', description: 'messages in those chats' },
      },
    },
  },
} as const;

export async function ltiAdminRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);
  const organizationPageQuery = pageBoundsQuerySchema(services.settings.pageSizeMaximum, organizationFilter);

  routes.get(
    '/api/lti/tool',
    {
      schema: {
        tags: TAGS,
        summary: "The tool's URLs for a platform's administrator",
        response: { 200: toolSchema, ...commonErrorResponses },
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
        response: { 200: pageSchema('A page of LTI 1.1 consumers, oldest first', consumerSchema), ...commonErrorResponses },
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
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: {
            organization_id: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
            name: { type: 'string', minLength: 1, maxLength: 200 },
            frame_origins: originListSchema,
          },
        },
        response: {
          201: {
            type: 'object',
            description: 'The consumer, with its secret (shown once)',
            properties: { ...consumerProperties, consumer_secret: { type: 'string' } },
          },
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
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, frame_origins: originListSchema },
        },
        response: { 200: consumerSchema, ...commonErrorResponses },
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
        response: { 200: pageSchema('A page of LTI 1.3 platforms, oldest first', platformSchema), ...commonErrorResponses },
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
        response: { 201: platformSchema, 409: commonErrorResponses[404], ...commonErrorResponses },
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
        response: { 200: platformSchema, 409: commonErrorResponses[404], ...commonErrorResponses },
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
        response: { 200: dashboardSchema, ...commonErrorResponses },
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
          properties: { assistant_id: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } },
        },
        response: { 200: activitySchema, ...commonErrorResponses },
      },
    },
    async (request) => services.ltiActivities.bind(callContext(request), request.params.id, request.body.assistant_id),
  );
}
