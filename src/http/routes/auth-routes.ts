/** Login (public, rate-limited per account and client address), logout and the caller's own account. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { userView } from '../../auth/user-view.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { emailSchema, passwordSchema } from '../../auth/user-schemas.js';
import {
  commonErrorResponses,
  errorResponseSchema,
  noContentResponse,
  timestampSchema,
  userViewProperties,
  userViewSchema,
} from '../schemas.js';

const loginSchema = {
  type: 'object',
  properties: { email: emailSchema, password: passwordSchema },
  required: ['email', 'password'],
  additionalProperties: false,
} as const;

const sessionSchema = {
  type: 'object',
  description: 'A session token for the Authorization header, and who it belongs to',
  properties: {
    token: { type: 'string', description: 'the session token (mrs_…)' },
    token_type: { type: 'string', enum: ['Bearer'] },
    expires_at: timestampSchema,
    user: userViewSchema('the user logged in'),
  },
} as const;

const meSchema = {
  type: 'object',
  description: 'The authenticated user, and the kind of credential this request used',
  properties: {
    ...userViewProperties,
    credential: { type: 'string', enum: ['session', 'api_key', 'assistant_owner'] },
  },
} as const;

export async function loginRoutes(app: FastifyInstance, services: Services): Promise<void> {
  typedRoutes(app).post(
    '/api/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log in with email and password; answers with a session token',
        description:
          'Too many failed logins of one account, or from one client address, answer 429 with Retry-After until the window ends (LOGIN_FAILURES_PER_ACCOUNT_MAX, LOGIN_FAILURES_PER_ADDRESS_MAX, LOGIN_FAILURE_WINDOW_SECONDS).',
        body: loginSchema,
        response: {
          200: sessionSchema,
          400: errorResponseSchema,
          401: errorResponseSchema,
          403: errorResponseSchema,
          429: errorResponseSchema,
        },
      },
    },
    async (request) => {
      const result = await services.authenticator.login({
        email: request.body.email,
        password: request.body.password,
        clientAddress: request.ip,
        requestId: request.id,
      });
      return { token: result.token, token_type: 'Bearer', expires_at: result.expiresAt, user: userView(result.user) };
    },
  );
}

export async function accountRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);
  routes.post(
    '/api/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke the session token used for this request',
        response: { 204: noContentResponse('Logged out'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      await services.authenticator.logout(context.identity, context.requestId);
      return reply.status(204).send();
    },
  );
  routes.get(
    '/api/me',
    { schema: { tags: ['auth'], summary: 'The authenticated user', response: { 200: meSchema, ...commonErrorResponses } } },
    async (request) => {
      const context = callContext(request);
      return { ...(await services.users.me(context)), credential: context.identity.credential };
    },
  );
}
