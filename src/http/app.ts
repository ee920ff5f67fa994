/**
 * Builds the Fastify application: logging, request ids, validation, errors, the OpenAPI
 * document, and every area's routes. Public routes stay outside the authenticated scope; all
 * others require a bearer session token or API key, or the browser's session cookie.
 */
import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import fastifyMultipart from '@fastify/multipart';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import type { Services } from '../services.js';
import { requireAuthentication } from './authentication.js';
import { limitChatRequests } from './chat-rate-limit.js';
import { errorBody, handleError } from './error-rendering.js';
import { answerClientError, answerFrameworkError } from './framework-errors.js';
import { pick } from './pick-services.js';
import { apiKeyRoutes } from './routes/api-key-routes.js';
import { usageRoutes } from './routes/usage-routes.js';
import { insightsRoutes } from './routes/insights-routes.js';
import { assistantQuotaRoutes } from './routes/assistant-quota-routes.js';
import { assistantTestCaseRoutes } from './routes/assistant-test-case-routes.js';
import { assistantTestRunRoutes } from './routes/assistant-test-run-routes.js';
import { chatCompletionRoutes } from './routes/chat-completion-routes.js';
import { chatRoutes } from './routes/chat-routes.js';
import { chatVersionRoutes } from './routes/chat-version-routes.js';
import { toolCatalogueRoutes } from './routes/tool-catalogue-routes.js';
import { modelListRoutes } from './routes/model-list-routes.js';
import { traceRoutes } from './routes/trace-routes.js';
import { organizationRoutes } from './routes/organization-routes.js';
import { organizationDirectoryRoutes } from './routes/organization-directory-routes.js';
import { auditRoutes } from './routes/audit-routes.js';
import { passwordRoutes } from './routes/password-routes.js';
import { organizationSettingsRoutes } from './routes/organization-settings-routes.js';
import { pluginCatalogueRoutes } from './routes/plugin-catalogue-routes.js';
import { knowledgeBaseRoutes } from './routes/knowledge-base-routes.js';
import { fileRoutes } from './routes/file-routes.js';
import { knowledgeDocumentRoutes } from './routes/knowledge-document-routes.js';
import { knowledgeJobEventRoutes } from './routes/knowledge-job-event-routes.js';
import { webSourceRoutes } from './routes/web-source-routes.js';
import { knowledgePassageRoutes } from './routes/knowledge-passage-routes.js';
import { assistantRoutes } from './routes/assistant-routes.js';
import { rubricRoutes } from './routes/rubric-routes.js';
import { templateRoutes } from './routes/template-routes.js';
import { accountRoutes, loginRoutes } from './routes/auth-routes.js';
import { signUpRoutes, signUpSettingsRoutes } from './routes/sign-up-routes.js';
import { healthRoutes } from './routes/health-routes.js';
import { userRoutes } from './routes/user-routes.js';
import { ltiAdminRoutes } from './routes/lti-admin-routes.js';
import { mcpServerRoutes } from './routes/mcp-server-routes.js';
import { ltiLaunchRoutes } from './routes/lti-launch-routes.js';
import { ltiTeacherRoutes } from './routes/lti-teacher-routes.js';
import { mcpRoutes } from './routes/mcp-routes.js';
import { sourceLinkRoutes } from './routes/source-link-routes.js';
import { multipartOptions } from './multipart-upload.js';
import { sessionCookieValue } from './session-cookie.js';
import { registerSecurityHeaders, widenContentSecurityPolicy } from './security-headers.js';
import { isAppPage, loadWebApp, registerWebAppFiles, sendAppPage } from './web-app.js';
import { rejectUnsafeInput, validatorCompiler } from './validation.js';
import { serializerCompiler } from './response-serializer.js';

/** A client's own request id is kept only when it is short and plain, so it is safe to log and echo. */
const CLIENT_REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

export interface AppOptions {
  logger: FastifyBaseLogger;
}

/** A hop count becomes the function Fastify itself would build from it (its types omit the number form). */
function fastifyTrustProxy(trustProxy: boolean | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trustProxy === 'number' ? (_address, hop) => hop < trustProxy : trustProxy;
}

function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_REQUEST_ID_PATTERN.test(header) ? header : randomUUID();
}

async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Merino API', version: '0.1.0', description: 'Assistants, accounts and the OpenAI-compatible endpoints of Merino.' },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A session token (mrs_…) or an API key (mrk_…)' } },
      },
      security: [{ bearer: [] }],
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * The origins a page of the app may be framed by beyond FRAME_ANCESTORS: those of the LTI
 * consumer or platform whose launch opened the browser's session, so the chat shows inside the
 * course. Anything unreadable (no cookie, a malformed one, a store hiccup) adds nothing.
 */
async function ltiFrameOrigins(services: Services, request: FastifyRequest): Promise<string[]> {
  try {
    const token = sessionCookieValue(request);
    const sessionId = token === undefined ? undefined : await services.authenticator.liveSessionId(token);
    return sessionId === undefined ? [] : ((await services.ltiLaunches.sessionFacts(sessionId))?.frameOrigins ?? []);
  } catch {
    return [];
  }
}

export async function buildApp(services: Services, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: services.settings.bodyBytesMaximum,
    genReqId: (request) => requestIdFrom(request.headers['x-request-id']),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Which X-Forwarded-For entries name the client (TRUST_PROXY); off, a client cannot choose its own address.
    trustProxy: fastifyTrustProxy(services.settings.trustProxy),
    // Requests refused before any route runs still get error JSON with a code, not Fastify's own shape.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  app.decorateRequest('identity', null);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  const webApp = loadWebApp(services.settings.webAppDirectory);
  app.setNotFoundHandler(async (request, reply) => {
    if (webApp && isAppPage(request)) {
      widenContentSecurityPolicy(reply, 'frame-ancestors', await ltiFrameOrigins(services, request));
      return sendAppPage(reply, webApp);
    }
    return reply
      .status(404)
      .send(errorBody(new AppError('route_not_found', `No endpoint ${request.method} ${request.url.split('?')[0]}.`)));
  });
  app.addHook('preValidation', async (request) => rejectUnsafeInput(request.body, request.query, services.settings.jsonDepthMaximum));
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // A request still running at shutdown would otherwise leave its keep-alive connection open,
    // and close() would wait for the client to hang up.
    if (closing) reply.header('connection', 'close');
  });

  await registerSecurityHeaders(app, services.settings);
  await registerOpenApi(app);
  if (webApp) await registerWebAppFiles(app, services.settings.webAppDirectory);
  await app.register(async (scope) => {
    await scope.register(healthRoutes, pick(services, 'health'));
    await scope.register(loginRoutes, pick(services, 'authenticator', 'settings'));
    await scope.register(signUpRoutes, pick(services, 'signUps', 'settings'));
    // Authenticates by itself: MCP clients expect a JSON-RPC error body with the 401, not the API's.
    await scope.register(mcpRoutes, pick(services, 'authenticator', 'mcp', 'drain', 'settings'));
    // Opens without a sign-in: the signed link alone speaks for the person it names.
    await scope.register(sourceLinkRoutes, pick(services, 'authenticator', 'sourceLinks', 'settings'));
  });
  // Form bodies are parsed in the LTI scopes only; every other route keeps refusing them with 415.
  await app.register(
    ltiLaunchRoutes,
    pick(services, 'ltiLaunches', 'ltiAdvantage', 'ltiActivities', 'ltiToolKeys', 'rateLimiter', 'settings'),
  );
  await app.register(async (scope) => {
    requireAuthentication(scope, services.authenticator, services.settings.corsOrigins);
    limitChatRequests(scope, services.rateLimiter);
    await scope.register(accountRoutes, pick(services, 'authenticator', 'ltiLaunches', 'users'));
    await scope.register(userRoutes, pick(services, 'users', 'settings'));
    await scope.register(passwordRoutes, pick(services, 'passwordChanges'));
    await scope.register(apiKeyRoutes, pick(services, 'apiKeys', 'settings'));
    await scope.register(
      assistantRoutes,
      pick(services, 'assistants', 'assistantSharing', 'assistantTransfer', 'assistantConversion', 'settings'),
    );
    await scope.register(rubricRoutes, pick(services, 'rubrics', 'settings'));
    await scope.register(templateRoutes, pick(services, 'templates', 'settings'));
    await scope.register(chatCompletionRoutes, pick(services, 'completions', 'drain', 'settings', 'frontEndPeople', 'sourceLinks'));
    await scope.register(chatRoutes, pick(services, 'chats', 'drain', 'settings'));
    await scope.register(chatVersionRoutes, pick(services, 'chats', 'answerFeedback', 'drain', 'settings'));
    await scope.register(toolCatalogueRoutes, pick(services, 'registries', 'modelLists', 'organizationControls'));
    await scope.register(modelListRoutes, pick(services, 'modelLists'));
    await scope.register(traceRoutes, pick(services, 'completions'));
    await scope.register(usageRoutes, pick(services, 'usage'));
    await scope.register(insightsRoutes, pick(services, 'insights'));
    await scope.register(assistantQuotaRoutes, pick(services, 'assistantQuotas'));
    await scope.register(assistantTestCaseRoutes, pick(services, 'testCases', 'testSuggestions', 'settings'));
    await scope.register(assistantTestRunRoutes, pick(services, 'testRuns', 'settings', 'drain'));
    await scope.register(organizationRoutes, pick(services, 'providerSettings'));
    await scope.register(organizationDirectoryRoutes, pick(services, 'organizations', 'settings'));
    await scope.register(auditRoutes, pick(services, 'auditLog', 'settings'));
    await scope.register(organizationSettingsRoutes, pick(services, 'organizationSettings'));
    await scope.register(pluginCatalogueRoutes, pick(services, 'pluginCatalogue'));
    await scope.register(signUpSettingsRoutes, pick(services, 'signUpSettings'));
    await scope.register(knowledgeBaseRoutes, pick(services, 'knowledgeBases', 'settings'));
    await scope.register(knowledgePassageRoutes, pick(services, 'knowledgePassages', 'settings'));
    await scope.register(knowledgeJobEventRoutes, pick(services, 'knowledgeJobEvents', 'drain'));
    await scope.register(webSourceRoutes, pick(services, 'webCrawls', 'webPageRefresher', 'settings'));
    await scope.register(ltiAdminRoutes, pick(services, 'ltiRegistrations', 'ltiActivities', 'settings'));
    await scope.register(mcpServerRoutes, pick(services, 'mcpServers', 'settings'));
    await scope.register(ltiTeacherRoutes, pick(services, 'ltiActivities', 'ltiAdvantage', 'ltiLaunches', 'chats', 'settings'));
    // Multipart parsing lives in a scope of its own: only the files routes read multipart bodies,
    // every other route keeps refusing them with 415.
    await scope.register(async (filesScope) => {
      await filesScope.register(fastifyMultipart, multipartOptions(services.settings.fileUploadBytesMaximum));
      await filesScope.register(fileRoutes, pick(services, 'files', 'generatedImages', 'settings'));
    });
    await scope.register(async (documentsScope) => {
      await documentsScope.register(fastifyMultipart, multipartOptions(services.settings.knowledgeUploadBytesMaximum));
      await documentsScope.register(knowledgeDocumentRoutes, pick(services, 'knowledgeDocuments', 'webPageDocuments', 'settings'));
    });
  });
  return app;
}
