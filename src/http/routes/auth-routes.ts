/**
 * Login (public, rate-limited per account and client address), logout and the caller's own account.
 * Login answers with the token for programs and also sets the browser's HttpOnly session cookie;
 * logout revokes the session and clears the cookie.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { userView } from '../../auth/user-view.js';
import { canCreateAssistants, canManageLti, canManageOrganizations, userAdministrationScope } from '../../auth/permissions.js';
import { callContext } from '../authentication.js';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.js';
import { typedRoutes } from '../route-type-provider.js';
import { loginSchema, meSchema, sessionSchema } from '../../auth/session-schemas.js';
import { commonErrorResponses, errorResponseSchema, noContentResponse } from '../schemas.js';

/** What the login route uses: nothing else of the service container reaches it. */
export type LoginRouteServices = Pick<Services, 'authenticator' | 'settings'>;

export const loginRoutes: FastifyPluginAsync<LoginRouteServices> = async (app, services) => {
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
};

/** What the account routes use: nothing else of the service container reaches them. */
export type AccountRouteServices = Pick<Services, 'authenticator' | 'ltiLaunches' | 'users'>;

export const accountRoutes: FastifyPluginAsync<AccountRouteServices> = async (app, services) => {
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
        capabilities: {
          create_assistants: canCreateAssistants(identity),
          manage_lti: canManageLti(identity),
          administer: userAdministrationScope(identity) !== undefined,
          manage_organizations: canManageOrganizations(identity),
        },
        ...(lti && { lti: { activity_id: lti.activityId, return_url: lti.returnUrl, instructor: lti.instructor } }),
      };
    },
  );
};
