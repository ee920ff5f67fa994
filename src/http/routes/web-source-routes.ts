/**
 * Knowledge from the web beyond one page: start a crawl of a page's same-site links (answered 202
 * at once, followed by reading the crawl), and refresh a document added from a web address, now
 * and optionally on a schedule. The services decide who may (web-crawl-service.ts, web-page-refresh.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  documentRefreshBodySchema,
  documentRefreshViewSchema,
  webCrawlBodySchema,
  webCrawlViewSchema,
} from '../../knowledge/web-sources/web-source-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, pathIdsSchema } from '../schemas.js';

export type WebSourceRouteServices = Pick<Services, 'webCrawls' | 'webPageRefresher' | 'settings'>;

export const webSourceRoutes: FastifyPluginAsync<WebSourceRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);
  const { settings } = services;

  routes.post(
    '/api/knowledge-bases/:id/web-crawls',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Add a web page and the pages it links to on the same site (a crawl, answered at once; read the crawl for its progress)',
        description: `Reads the page, then its links that stay on the same site (same scheme, host and port), to \`depth\` links away (at most ${settings.webCrawlDepthMaximum}, WEB_CRAWL_DEPTH_MAX) and at most \`pages\` pages (at most ${settings.webCrawlPagesMaximum}, WEB_CRAWL_PAGES_MAX), ${settings.webCrawlPagesInFlight} at a time, each under the outbound rules and the site's robots.txt. Every page read becomes a document of its own with its \`source_url\`; a page that fails is listed with its reason and the others go on.`,
        params: idParametersSchema,
        body: webCrawlBodySchema,
        response: { 202: webCrawlViewSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(202).send(await services.webCrawls.start(callContext(request), request.params.id, request.body)),
  );

  routes.get(
    '/api/knowledge-bases/:id/web-crawls/:crawlId',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Get a crawl of same-site links: pages read so far, the documents made and the pages that failed',
        params: pathIdsSchema('id', 'crawlId'),
        response: { 200: webCrawlViewSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.webCrawls.get(callContext(request), request.params.id, request.params.crawlId),
  );

  routes.post(
    '/api/knowledge-bases/:id/documents/:documentId/refresh',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Read a web page document again now: re-indexed only when its text changed',
        description: `Reads the document's page again under the same rules as when it was added. \`unchanged\` moves only its last-checked time; \`changed\` stores the new text and re-indexes it (\`job_id\`); \`failed\` keeps its passages and says why. With \`every_seconds\` (at least ${settings.webRefreshIntervalMinimumSeconds}, WEB_REFRESH_INTERVAL_MIN_SECONDS) it is also refreshed on that schedule; \`null\` stops the schedule. Only documents added from a web address can be refreshed (400 otherwise); one still being indexed is a 409.`,
        params: pathIdsSchema('id', 'documentId'),
        body: documentRefreshBodySchema,
        response: { 200: documentRefreshViewSchema, ...commonErrorResponses, 409: errorResponseSchema },
      },
    },
    async (request) => services.webPageRefresher.refresh(callContext(request), request.params.id, request.params.documentId, request.body),
  );
};
