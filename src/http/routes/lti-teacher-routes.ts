/**
 * The teacher's LTI pages, served by the server under /lti so they work inside the course's frame
 * straight from a launch: an unset activity's set-up, its dashboard, and the LTI 1.3 deep-linking
 * answer. They need the session the launch opened (the cookie; its form posts are checked for
 * Merino's own origin like every cookie-authenticated change).
 */
import fastifyFormbody from '@fastify/formbody';
import { idSchema } from '../../validation/shape-fragments.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { isLtiLaunchRefusal } from '../../lti/lti-launch-refusal.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { boundPage, dashboardPage, deepLinkingReturnPage, refusedLaunchPage, setUpPage } from '../lti/lti-pages.js';
import { formPairsParser, formValue } from '../lti/lti-form-body.js';
import { requestPageLocale, sendPage } from '../lti/lti-page-reply.js';
import { ownOrigin } from '../lti/own-origin.js';
import { widenContentSecurityPolicy } from '../security-headers.js';

function activityId(request: FastifyRequest): number {
  const id = Number((request.params as { id?: string }).id);
  if (!Number.isSafeInteger(id) || id < idSchema.minimum || id > idSchema.maximum)
    throw new AppError('invalid_parameter', 'The activity id must be a positive integer.', { param: 'id' });
  return id;
}

function assistantIdOf(request: FastifyRequest): number {
  const id = Number(formValue(request, 'assistant_id'));
  if (!Number.isSafeInteger(id) || id < idSchema.minimum || id > idSchema.maximum)
    throw new AppError('invalid_body', 'Choose an assistant.', { param: 'assistant_id' });
  return id;
}

/** What the teacher's LTI pages use: nothing else of the service container reaches them. */
export type LtiTeacherRouteServices = Pick<Services, 'ltiActivities' | 'ltiAdvantage' | 'ltiLaunches' | 'chats' | 'settings'>;

export const ltiTeacherRoutes: FastifyPluginAsync<LtiTeacherRouteServices> = async (app, services) => {
  await app.register(fastifyFormbody, { parser: formPairsParser });
  const hidden = { schema: { hide: true } };

  /** Pages for a session a launch opened may be framed by that launch's consumer or platform. */
  const allowCourseFrame = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { identity } = callContext(request);
    if (identity.credential !== 'session') return;
    const facts = await services.ltiLaunches.sessionFacts(identity.credentialId);
    widenContentSecurityPolicy(reply, 'frame-ancestors', facts?.frameOrigins ?? []);
  };

  app.get('/lti/activities/:id/setup', hidden, async (request, reply) => {
    const view = await services.ltiActivities.setUp(callContext(request), activityId(request));
    await allowCourseFrame(request, reply);
    return sendPage(reply, 200, setUpPage(requestPageLocale(request), view.activity, view.choices));
  });

  app.post('/lti/activities/:id/setup', hidden, async (request, reply) => {
    const activity = await services.ltiActivities.bind(callContext(request), activityId(request), assistantIdOf(request));
    await allowCourseFrame(request, reply);
    return sendPage(reply, 200, boundPage(requestPageLocale(request), activity));
  });

  app.get('/lti/activities/:id', hidden, async (request, reply) => {
    const context = callContext(request);
    const dashboard = await services.ltiActivities.dashboard(context, activityId(request));
    const assistantId = dashboard.activity.assistant_id;
    const choices = assistantId === null ? [] : await services.ltiActivities.choices(context.identity);
    const chats =
      assistantId === null
        ? undefined
        : await services.chats.ofMembers(context, assistantId, {
            ...(await services.ltiActivities.chatAudience(context, dashboard.activity.id)),
            limit: services.settings.pageSizeMaximum,
          });
    await allowCourseFrame(request, reply);
    const assistantName = choices.find((choice) => choice.id === assistantId)?.name;
    return sendPage(reply, 200, dashboardPage(requestPageLocale(request), { dashboard, assistantName, chats }));
  });

  app.post('/lti/1.3/deep-linking', hidden, async (request, reply) => {
    const context = callContext(request);
    const assistantId = assistantIdOf(request);
    if (!(await services.ltiActivities.mayUse(context.identity, assistantId)))
      throw new AppError('not_found', 'Assistant not found.', { param: 'assistant_id' });
    const chosen = (await services.ltiActivities.choices(context.identity)).find((choice) => choice.id === assistantId);
    try {
      const answer = await services.ltiAdvantage.answerDeepLinking({
        context: formValue(request, 'context') ?? '',
        userId: context.identity.userId,
        assistantId,
        title: chosen?.name ?? `Assistant ${assistantId}`,
        launchUrl: `${ownOrigin(request)}/lti/1.3/launch`,
      });
      widenContentSecurityPolicy(reply, 'form-action', [new URL(answer.returnUrl).origin]);
      widenContentSecurityPolicy(reply, 'frame-ancestors', answer.frameOrigins);
      return await sendPage(reply, 200, deepLinkingReturnPage(requestPageLocale(request), answer.returnUrl, answer.jwt));
    } catch (error) {
      if (!isLtiLaunchRefusal(error)) throw error;
      return sendPage(reply, 401, refusedLaunchPage(requestPageLocale(request), error.message));
    }
  });
};
