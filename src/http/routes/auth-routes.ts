/** Login (public, rate-limited per account and client address), logout and the caller's own account. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { userView } from '../../auth/user-view.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, emailSchema, errorResponseSchema, passwordSchema } from '../schemas.js';

interface LoginBody {
  email: string;
  password: string;
}

export async function loginRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Body: LoginBody }>(
    '/api/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log in with email and password; answers with a session token',
        description:
          'Too many failed logins of one account, or from one client address, answer 429 with Retry-After until the window ends (LOGIN_FAILURES_PER_ACCOUNT_MAX, LOGIN_FAILURES_PER_ADDRESS_MAX, LOGIN_FAILURE_WINDOW_SECONDS).',
        body: {
          type: 'object',
          properties: { email: emailSchema, password: passwordSchema },
          required: ['email', 'password'],
          additionalProperties: false,
        },
        response: { 400: errorResponseSchema, 401: errorResponseSchema, 403: errorResponseSchema, 429: errorResponseSchema },
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
  app.post(
    '/api/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke the session token used for this request',
        response: { 204: { type: 'null', description: 'Logged out' }, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      await services.authenticator.logout(context.identity, context.requestId);
      return reply.status(204).send();
    },
  );
  app.get('/api/me', { schema: { tags: ['auth'], summary: 'The authenticated user' } }, async (request) => {
    const context = callContext(request);
    return { ...(await services.users.me(context)), credential: context.identity.credential };
  });
}
