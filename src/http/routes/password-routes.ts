/**
 * One-time passwords: an admin resets a user's password (the one-time password is in the answer,
 * once), and anyone chooses a new password of their own, which a one-time password requires
 * before any other call.
 */
import type { FastifyPluginAsync } from 'fastify';
import { passwordChangeSchema, passwordResetViewSchema } from '../../auth/user-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';

/** What the password routes use: nothing else of the service container reaches them. */
export type PasswordRouteServices = Pick<Services, 'passwordChanges'>;

export const passwordRoutes: FastifyPluginAsync<PasswordRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/users/:id/password-reset',
    {
      schema: {
        tags: ['users'],
        summary: "Reset a user's password to a one-time password they must change at their next login (admins over the user)",
        description:
          "The one-time password is shown in this answer only. The user's sessions end; until they choose a new password every call but POST /api/auth/password, POST /api/auth/logout and GET /api/me answers 403 password_change_required.",
        params: idParametersSchema,
        response: { 200: passwordResetViewSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.passwordChanges.reset(callContext(request), request.params.id),
  );

  routes.post(
    '/api/auth/password',
    {
      schema: {
        tags: ['auth'],
        summary: 'Choose a new password, giving the current (or one-time) one; your other sessions end',
        body: passwordChangeSchema,
        response: { 204: noContentResponse('Changed'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.passwordChanges.changeOwn(callContext(request), request.body);
      return reply.status(204).send();
    },
  );
};
