/**
 * `GET /api/source-links/{token}`: the passage a signed link of a "Sources" block names, with its
 * neighbours, and nothing else (source-link-service.ts decides who it opens for). It answers
 * without a sign-in, since the link alone speaks for the person it names; a caller who is signed
 * in is told apart, so another learner's session is refused. Credentials that do not authenticate
 * (an expired session cookie) count as no sign-in.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { CallContext } from '../../auth/call-context.js';
import { AppError } from '../../errors/app-error.js';
import { passageInContextSchema } from '../../knowledge/knowledge-passage-schemas.js';
import type { Services } from '../../services.js';
import { identityOfRequest } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';

export type SourceLinkRouteServices = Pick<Services, 'authenticator' | 'sourceLinks' | 'settings'>;

const tokenParametersSchema = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 200, description: 'the signed token of the link' } },
} as const;

async function viewerOf(services: SourceLinkRouteServices, request: FastifyRequest): Promise<CallContext | undefined> {
  try {
    return { identity: await identityOfRequest(request, services.authenticator, services.settings.corsOrigins), requestId: request.id };
  } catch (error) {
    if (error instanceof AppError && error.status === 401) return undefined;
    throw error;
  }
}

export const sourceLinkRoutes: FastifyPluginAsync<SourceLinkRouteServices> = async (app, services) => {
  typedRoutes(app).get(
    '/api/source-links/:token',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Open a signed source link: the cited passage with its neighbours',
        description:
          'For the person the link names (signed in or not) while it lasts (SOURCE_LINK_LIFETIME_HOURS), or for a signed-in reader of the knowledge base. An altered or made-up link, or another signed-in person, gets 404; an ended one 410 `source_link_expired`.',
        // The link alone opens it; a bearer token or session, when sent, says who is looking.
        security: [{}, { bearer: [] }],
        params: tokenParametersSchema,
        response: { 200: passageInContextSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      // The token is a credential in the URL: never cached, never sent on as a Referer.
      void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      return services.sourceLinks.open(request.params.token, await viewerOf(services, request));
    },
  );
};
