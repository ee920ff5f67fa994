/**
 * Self sign-up (docs/sign-up.md): the public `POST /api/auth/sign-up`, which makes an account in
 * the organization whose key is given and signs it in as a login does, and the organization
 * admins' `GET/PUT /api/organizations/{id}/sign-up` and `POST …/sign-up/rotate`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { userView } from '../../auth/user-view.js';
import { sessionSchema } from '../../auth/session-schemas.js';
import { signUpSchema } from '../../auth/sign-up/sign-up-schemas.js';
import { signUpSettingsSchema, signUpSettingsViewSchema } from '../../organizations/sign-up-settings-schemas.js';
import { callContext } from '../authentication.js';
import { setSessionCookie } from '../session-cookie.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema } from '../schemas.js';

/** What the sign-up route uses: nothing else of the service container reaches it. */
export type SignUpRouteServices = Pick<Services, 'signUps' | 'settings'>;

export const signUpRoutes: FastifyPluginAsync<SignUpRouteServices> = async (app, services) => {
  typedRoutes(app).post(
    '/api/auth/sign-up',
    {
      schema: {
        tags: ['auth'],
        summary: "Make your own account with an organization's sign-up key; answers as a login does and sets the session cookie",
        description:
          'The key decides the organization and the role. A wrong, rotated or closed key and an email already used all get 403 sign_up_refused with one message; an email outside the allowed domain gets 403 email_domain_not_allowed; a suspended organization 403 organization_suspended. Every attempt from one client address counts against SIGN_UP_ATTEMPTS_PER_ADDRESS_MAX per SIGN_UP_WINDOW_SECONDS (429 with Retry-After past it).',
        body: signUpSchema,
        response: {
          201: sessionSchema,
          400: errorResponseSchema,
          403: errorResponseSchema,
          429: errorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const result = await services.signUps.signUp({ input: request.body, clientAddress: request.ip, requestId: request.id });
      setSessionCookie(request, reply, result.token, services.settings.sessionTtlHours * 3600);
      return reply
        .status(201)
        .send({ token: result.token, token_type: 'Bearer' as const, expires_at: result.expiresAt, user: userView(result.user) });
    },
  );
};

/** What the sign-up settings routes use: nothing else of the service container reaches them. */
export type SignUpSettingsRouteServices = Pick<Services, 'signUpSettings'>;

export const signUpSettingsRoutes: FastifyPluginAsync<SignUpSettingsRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/organizations/:id/sign-up',
    {
      schema: {
        tags: ['organizations'],
        summary: "The organization's self sign-up: on or off, the allowed email domain and the role; never the key",
        params: idParametersSchema,
        response: { 200: signUpSettingsViewSchema("The organization's self sign-up"), ...commonErrorResponses },
      },
    },
    async (request) => services.signUpSettings.get(callContext(request), request.params.id),
  );

  routes.put(
    '/api/organizations/:id/sign-up',
    {
      schema: {
        tags: ['organizations'],
        summary: "Turn the organization's self sign-up on or off, with its allowed email domain and role",
        description: 'Turning it on when no key was made yet makes one, shown once as sign_up_key in this answer.',
        params: idParametersSchema,
        body: signUpSettingsSchema,
        response: { 200: signUpSettingsViewSchema('The self sign-up as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.signUpSettings.update(callContext(request), request.params.id, request.body),
  );

  routes.post(
    '/api/organizations/:id/sign-up/rotate',
    {
      schema: {
        tags: ['organizations'],
        summary: 'Make a new sign-up key, shown once as sign_up_key; the old key stops working at once',
        params: idParametersSchema,
        response: { 200: signUpSettingsViewSchema('The self sign-up with its new key'), ...commonErrorResponses },
      },
    },
    async (request) => services.signUpSettings.rotateKey(callContext(request), request.params.id),
  );
};
