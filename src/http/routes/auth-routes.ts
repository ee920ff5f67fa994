/**
 * Login (public, rate-limited per account and client address), logout and the caller's own account.
 * Login answers with the token for programs and also sets the browser's HttpOnly session cookie;
 * logout revokes the session and clears the cookie.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { userView } from '../../auth/user-view.js';
import { canCreateAssistants, canManageLti } from '../../auth/permissions.js';
import { callContext } from '../authentication.js';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.js';
import { typedRoutes } from '../route-type-provider.js';
import { emailSchema, passwordSchema, userViewProperties, userViewSchema } from '../../auth/user-schemas.js';
import { commonErrorResponses, errorResponseSchema, noContentResponse } from '../schemas.js';
import { timestampSchema } from '../../validation/shape-fragments.js';

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
    capabilities: {
      type: 'object',
      description: 'what the permission module lets the user do beyond single resources, so pages show only the controls that will work',
      properties: {
        create_assistants: { type: 'boolean', description: 'may create and import assistants' },
        manage_lti: { type: 'boolean', description: "may manage the organization's LTI consumers and platforms (/admin/lti)" },
      },
      required: ['create_assistants', 'manage_lti'],
    },
    lti: {
      type: 'object',
      description:
        'present only for a session an LTI launch opened: the activity it opened and where "Back to course" leads (null when the platform gave no return URL)',
      properties: {
        activity_id: { type: 'integer', description: 'the LTI activity (resource link); its dashboard is /lti/activities/{activity_id}' },
        return_url: { type: ['string', 'null'], description: "the platform's launch_presentation_return_url, an http(s) URL" },
        instructor: { type: 'boolean', description: 'whether the launch named the user Instructor' },
      },
      required: ['activity_id', 'return_url', 'instructor'],
    },
  },
} as const;

export async function loginRoutes(app: FastifyInstance, services: Services): Promise<void> {
  typedRoutes(app).post(
    '/api/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log in with email and password; answers with a session token and sets the session cookie',
        description:
          "The token in the body is for programs (Authorization: Bearer); browsers use the HttpOnly merino_session cookie set with it, whose changes must come from this server's origin or CORS_ORIGINS. Too many failed logins of one account, or from one client address, answer 429 with Retry-After until the window ends (LOGIN_FAILURES_PER_ACCOUNT_MAX, LOGIN_FAILURES_PER_ADDRESS_MAX, LOGIN_FAILURE_WINDOW_SECONDS).",
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
    async (request, reply) => {
      const result = await services.authenticator.login({
        email: request.body.email,
        password: request.body.password,
        clientAddress: request.ip,
        requestId: request.id,
      });
      setSessionCookie(request, reply, result.token, services.settings.sessionTtlHours * 3600);
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
        summary: 'Revoke the session used for this request (bearer token or cookie) and clear the session cookie',
        response: { 204: noContentResponse('Logged out'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      await services.authenticator.logout(context.identity, context.requestId);
      clearSessionCookie(request, reply);
      return reply.status(204).send();
    },
  );
  routes.get(
    '/api/me',
    { schema: { tags: ['auth'], summary: 'The authenticated user', response: { 200: meSchema, ...commonErrorResponses } } },
    async (request) => {
      const context = callContext(request);
      const { identity } = context;
      const lti = identity.credential === 'session' ? await services.ltiLaunches.sessionFacts(identity.credentialId) : undefined;
      return {
        ...(await services.users.me(context)),
        credential: identity.credential,
        capabilities: { create_assistants: canCreateAssistants(identity), manage_lti: canManageLti(identity) },
        ...(lti && { lti: { activity_id: lti.activityId, return_url: lti.returnUrl, instructor: lti.instructor } }),
      };
    },
  );
}
