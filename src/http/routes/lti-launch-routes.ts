/**
 * The public LTI endpoints a learning platform calls: the LTI 1.1 launch, the LTI 1.3 login
 * initiation (which gives the browser the login's secret: a cookie, and the platform's storage
 * when it offers one) and launch (which asks the browser for it back), and the tool's JWKS. Launches are rate-limited per client address; a
 * refused launch is a 401 page saying why in plain words (audited by the service), never JSON
 * or a stack. Form bodies are read here (and in the teacher's pages) only, as ordered name/value
 * pairs (lti-form-body.ts).
 */
import fastifyFormbody from '@fastify/formbody';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { LaunchDestination, LaunchOutcome } from '../../lti/lti-launch-service.js';
import { isLtiLaunchRefusal } from '../../lti/lti-launch-refusal.js';
import type { Services } from '../../services.js';
import {
  AUTO_SUBMIT_SCRIPT,
  AUTO_SUBMIT_SCRIPT_PATH,
  deepLinkingPickerPage,
  notSetUpPage,
  platformStorageLaunchPage,
  platformStorageLoginPage,
  refusedLaunchPage,
} from '../lti/lti-pages.js';
import { formPairs, formPairsParser, formValue } from '../lti/lti-form-body.js';
import { requestPageLocale, sendPage } from '../lti/lti-page-reply.js';
import { PLATFORM_STORAGE_SCRIPT, PLATFORM_STORAGE_SCRIPT_PATH } from '../lti/lti-platform-storage-script.js';
import { clearLtiStateCookie, LAUNCH_PATH, ltiStateCookieValue, setLtiStateCookie } from '../lti/lti-state-cookie.js';
import { widenContentSecurityPolicy } from '../security-headers.js';
import { ownOrigin } from '../lti/own-origin.js';
import { setLtiSessionCookie } from '../session-cookie.js';

/** Refusal pages hold nothing to click on, so any course page may frame them: the learner sees why, not a blank frame. */
function refused(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (!isLtiLaunchRefusal(error)) throw error;
  widenContentSecurityPolicy(reply, 'frame-ancestors', ['*']);
  return sendPage(reply, 401, refusedLaunchPage(requestPageLocale(request), error.message));
}

function destinationPath(destination: LaunchDestination): string | undefined {
  if (destination.kind === 'chat') return `/chat/${destination.assistantId}`;
  if (destination.kind === 'set_up') return `/lti/activities/${destination.activityId}/setup`;
  return undefined;
}

function sendDestination(request: FastifyRequest, reply: FastifyReply, outcome: LaunchOutcome): FastifyReply {
  const { destination } = outcome;
  // Browsers check the frame's policy on the redirect too, so the launch's own answer may be framed by the course.
  widenContentSecurityPolicy(reply, 'frame-ancestors', outcome.frameOrigins);
  const path = destinationPath(destination);
  if (path !== undefined) return reply.status(303).header('location', path).send();
  widenContentSecurityPolicy(reply, 'frame-ancestors', ['*']);
  return sendPage(reply, 200, notSetUpPage(requestPageLocale(request)));
}

/**
 * The login's secret as this browser presents it: its cookie, or the value a platform-storage page
 * read back from the platform. The latter only from Merino's own page (its Origin): any site can
 * post a form field, and an attacker knows the secret of the login they started themselves.
 */
function presentedSecret(request: FastifyRequest, state: string | undefined): string | undefined {
  const cookie = ltiStateCookieValue(request, state);
  if (cookie !== undefined) return cookie;
  if (request.headers.origin !== ownOrigin(request)) return undefined;
  return formValue(request, 'platform_storage_secret') || undefined;
}

function queryOrForm(request: FastifyRequest, name: string): string | undefined {
  const query = request.query as Record<string, unknown>;
  const value = request.method === 'POST' ? formValue(request, name) : query[name];
  return typeof value === 'string' ? value : undefined;
}

/** What the LTI launch routes use: nothing else of the service container reaches them. */
export type LtiLaunchRouteServices = Pick<
  Services,
  'ltiLaunches' | 'ltiAdvantage' | 'ltiActivities' | 'ltiToolKeys' | 'rateLimiter' | 'settings'
>;

export const ltiLaunchRoutes: FastifyPluginAsync<LtiLaunchRouteServices> = async (app, services) => {
  await app.register(fastifyFormbody, { parser: formPairsParser });
  const hidden = { schema: { hide: true } };
  const admit = async (request: FastifyRequest) => services.rateLimiter.admitLtiLaunch(request.ip);

  app.post('/lti/launch', { ...hidden, preHandler: admit }, async (request, reply) => {
    try {
      const outcome = await services.ltiLaunches.launchClassic({
        method: request.method,
        url: `${ownOrigin(request)}${request.url}`,
        bodyParameters: formPairs(request),
        requestId: request.id,
      });
      setLtiSessionCookie(request, reply, outcome.token, outcome.lifetimeSeconds);
      return await sendDestination(request, reply, outcome);
    } catch (error) {
      return refused(request, reply, error);
    }
  });

  const login = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const answer = await services.ltiAdvantage.login(
        {
          iss: queryOrForm(request, 'iss'),
          login_hint: queryOrForm(request, 'login_hint'),
          target_link_uri: queryOrForm(request, 'target_link_uri'),
          lti_message_hint: queryOrForm(request, 'lti_message_hint'),
          client_id: queryOrForm(request, 'client_id'),
          lti_deployment_id: queryOrForm(request, 'lti_deployment_id'),
          lti_storage_target: queryOrForm(request, 'lti_storage_target'),
        },
        `${ownOrigin(request)}${LAUNCH_PATH}`,
      );
      setLtiStateCookie(reply, answer.state, answer.browserSecret, answer.lifetimeSeconds);
      widenContentSecurityPolicy(reply, 'frame-ancestors', answer.frameOrigins);
      if (answer.storage === undefined)
        return await reply.status(302).header('cache-control', 'no-store').header('location', answer.authorizationUrl).send();
      const content = {
        storage: answer.storage,
        secret: answer.browserSecret,
        authorizationUrl: answer.authorizationUrl,
        waitMilliseconds: services.settings.ltiPlatformStorageWaitMilliseconds,
      };
      return await sendPage(reply, 200, platformStorageLoginPage(requestPageLocale(request), content));
    } catch (error) {
      return refused(request, reply, error);
    }
  };
  app.get('/lti/1.3/login', { ...hidden, preHandler: admit }, login);
  app.post('/lti/1.3/login', { ...hidden, preHandler: admit }, login);

  app.post(LAUNCH_PATH, { ...hidden, preHandler: admit }, async (request, reply) => {
    try {
      const idToken = formValue(request, 'id_token');
      const state = formValue(request, 'state');
      const outcome = await services.ltiAdvantage.launch({
        idToken,
        state,
        browserSecret: presentedSecret(request, state),
        requestId: request.id,
      });
      if (outcome.kind === 'platform_storage') {
        widenContentSecurityPolicy(reply, 'frame-ancestors', outcome.frameOrigins);
        const content = {
          storage: outcome.storage,
          idToken: idToken ?? '',
          state: state ?? '',
          waitMilliseconds: services.settings.ltiPlatformStorageWaitMilliseconds,
        };
        return await sendPage(reply, 200, platformStorageLaunchPage(requestPageLocale(request), content));
      }
      clearLtiStateCookie(reply, state);
      setLtiSessionCookie(request, reply, outcome.token, outcome.lifetimeSeconds);
      if (outcome.kind === 'launch') return await sendDestination(request, reply, outcome);
      widenContentSecurityPolicy(reply, 'frame-ancestors', outcome.frameOrigins);
      const choices = await services.ltiActivities.choices(outcome.teacher);
      return await sendPage(reply, 200, deepLinkingPickerPage(requestPageLocale(request), outcome.context, choices));
    } catch (error) {
      return refused(request, reply, error);
    }
  });

  app.get('/lti/1.3/jwks', hidden, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(await services.ltiToolKeys.jwks()),
  );

  for (const [path, script] of [
    [AUTO_SUBMIT_SCRIPT_PATH, AUTO_SUBMIT_SCRIPT],
    [PLATFORM_STORAGE_SCRIPT_PATH, PLATFORM_STORAGE_SCRIPT],
  ] as const) {
    app.get(path, hidden, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(script),
    );
  }
};
