/**
 * Documents of a knowledge base and their ingestion jobs: upload (multipart, field `file`;
 * answered 202 with the queued job), list with status, download the original, delete; list and
 * read jobs, retry a failed or cancelled one, cancel a pending or running one. Uploads are read
 * by multipart-upload.ts as the files API's are, so the same malformed or oversized uploads get the same 4xx.
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { ACCEPTED_DOCUMENT_EXTENSIONS } from '../../document-reading/document-types.js';
import {
  documentViewSchema,
  jobViewSchema,
  queuedSchema,
  queuedWebPageSchema,
  textDocumentsSchema,
  webPageBodySchema,
} from '../../knowledge/knowledge-document-schemas.js';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { bodyCheckerFor } from '../validation.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, noContentResponse, pathIdsSchema } from '../schemas.js';
import { pageSchema } from '../../validation/shape-fragments.js';
import { documentOnlyBodyValidator, SEND_AS_MULTIPART, uploadBodySchema, withUploadedFile } from '../multipart-upload.js';

const documentParametersSchema = pathIdsSchema('id', 'documentId');
const jobParametersSchema = pathIdsSchema('id', 'jobId');
const conflictResponses = { ...commonErrorResponses, 409: errorResponseSchema } as const;

const checkTextDocuments = bodyCheckerFor(textDocumentsSchema);

/** `attachment` with an ASCII fallback name and the real one in RFC 5987 form. */
function attachmentHeader(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'document';
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * The 413 for a JSON body over KB_JSON_BODY_MAX_BYTES names the limit and the way around it. What
 * a route's error handler throws goes on to the app's handler, which renders every error alike;
 * other errors pass through unchanged. (Multipart uploads are not read by the body parser, so this
 * limit never applies to them: they stream to disk under KB_UPLOAD_MAX_BYTES.)
 */
function jsonBodyLimitErrors(jsonBytesMaximum: number) {
  return (error: FastifyError): never => {
    if (error.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') throw error;
    throw new AppError(
      'body_too_large',
      `The JSON body is larger than the limit of ${jsonBytesMaximum} bytes (KB_JSON_BODY_MAX_BYTES). Send fewer texts per request, or upload large documents as files (multipart/form-data).`,
      { details: { max_bytes: jsonBytesMaximum } },
    );
  };
}

/** What the knowledge-document routes use: nothing else of the service container reaches them. */
export type KnowledgeDocumentRouteServices = Pick<Services, 'knowledgeDocuments' | 'webPageDocuments' | 'settings'>;

export const knowledgeDocumentRoutes: FastifyPluginAsync<KnowledgeDocumentRouteServices> = async (app, services) => {
  const bytesMaximum = services.settings.knowledgeUploadBytesMaximum;
  const jsonBytesMaximum = services.settings.knowledgeJsonBodyBytesMaximum;
  const documents = services.knowledgeDocuments;
  const pageQuery = pageBoundsQuerySchema(services.settings.pageSizeMaximum);
  const routes = typedRoutes(app);

  routes.post(
    '/api/knowledge-bases/:id/documents',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Upload a document, or send texts as JSON, to index (answers with the ingestion jobs)',
        description: `${SEND_AS_MULTIPART} Or send JSON \`{"documents": [{"text", "metadata"}]}\` (at most ${services.settings.knowledgeJsonDocumentsMaximum} documents): each text becomes a document, named by \`metadata.filename\` or \`metadata.title\`, whose chunks carry its metadata, and the answer lists \`{document_id, job_id}\` for each. A JSON body may be at most ${jsonBytesMaximum} bytes. Accepted are ${ACCEPTED_DOCUMENT_EXTENSIONS.map((extension) => `.${extension}`).join(', ')} files of at most ${bytesMaximum} bytes; the content must match the extension.`,
        consumes: ['multipart/form-data', 'application/json'],
        params: idParametersSchema,
        body: uploadBodySchema('a .txt, .md, .html, .pdf or .docx document'),
        response: { 202: queuedSchema, ...commonErrorResponses, 413: errorResponseSchema, 415: errorResponseSchema },
      },
      validatorCompiler: documentOnlyBodyValidator,
      // Only the JSON form is read whole into memory (the parser holds the raw bytes, their text and
      // the parsed object at once), so its limit is its own and well below the streamed upload's.
      bodyLimit: jsonBytesMaximum,
      errorHandler: jsonBodyLimitErrors(jsonBytesMaximum),
    },
    async (request, reply) => {
      const context = callContext(request);
      // The body schema documents the multipart form only and checks nothing, so a JSON body arrives here unchecked.
      const body: unknown = request.body;
      if (!request.isMultipart() && body !== undefined && body !== null) {
        return reply.status(202).send(await documents.addTexts(context, request.params.id, checkTextDocuments(body).documents));
      }
      const queued = await withUploadedFile(request, reply, bytesMaximum, (upload) => documents.upload(context, request.params.id, upload));
      return reply.status(202).send(queued);
    },
  );

  routes.post(
    '/api/knowledge-bases/:id/web-pages',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary:
          "Add a web page or a video's transcript by its URL: indexed as a document whose passages link to the page or the moment in the video",
        description:
          "The address is read now, under the outbound rules (public addresses only, WEB_PAGE_MAX_BYTES, WEB_PAGE_TIMEOUT_MS, WEB_PAGE_REDIRECTS_MAX, content types checked) and the site's robots.txt. A YouTube video's address becomes its published captions (read from YOUTUBE_BASE_URL, in `language` or the video's default, a person's before automatic ones); a caption file's address (.vtt, .srt), or a page whose `<video>` has a caption `<track>` or that links a .vtt or .srt file, becomes that transcript (`kind: \"transcript\"`), whose passages link to their moment (`&t=…s` on YouTube, `#t=…` elsewhere). Any other page's readable text becomes a document linking to it (`kind: \"web_page\"`). An address that cannot be read is a 400 `unreadable_document` saying why (no captions in this language, listing those there are; no captions; a private address; too large; too slow). The document is then ingested like any upload.",
        params: idParametersSchema,
        body: webPageBodySchema,
        response: { 202: queuedWebPageSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await services.webPageDocuments.add(callContext(request), request.params.id, request.body)),
  );

  routes.get(
    '/api/knowledge-bases/:id/documents',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'List the documents with their ingestion status, newest first',
        params: idParametersSchema,
        querystring: pageQuery,
        response: { 200: pageSchema('A page of the documents', documentViewSchema('a document')), ...commonErrorResponses },
      },
    },
    async (request) => documents.list(callContext(request), request.params.id, request.query),
  );

  routes.get(
    '/api/knowledge-bases/:id/documents/:documentId',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Get a document with its ingestion status',
        params: documentParametersSchema,
        response: { 200: documentViewSchema('The document'), ...commonErrorResponses },
      },
    },
    async (request) => documents.get(callContext(request), request.params.id, request.params.documentId),
  );

  routes.get(
    '/api/knowledge-bases/:id/documents/:documentId/content',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Download the document as uploaded',
        params: documentParametersSchema,
        response: {
          200: {
            description: 'The document as uploaded, with its own content type, as an attachment',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const content = await documents.content(callContext(request), request.params.id, request.params.documentId);
      return reply
        .header('content-type', content.contentType)
        .header('content-disposition', attachmentHeader(content.fileName))
        .header('content-length', content.sizeBytes)
        .send(content.stream);
    },
  );

  routes.delete(
    '/api/knowledge-bases/:id/documents/:documentId',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Delete a document with its chunks and stored file',
        params: documentParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await documents.delete(callContext(request), request.params.id, request.params.documentId);
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/knowledge-bases/:id/jobs',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'List the ingestion jobs, newest first',
        params: idParametersSchema,
        querystring: pageQuery,
        response: { 200: pageSchema('A page of the ingestion jobs', jobViewSchema('a job')), ...commonErrorResponses },
      },
    },
    async (request) => documents.listJobs(callContext(request), request.params.id, request.query),
  );

  routes.get(
    '/api/knowledge-bases/:id/jobs/:jobId',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Get an ingestion job with its progress',
        params: jobParametersSchema,
        response: { 200: jobViewSchema('The job'), ...commonErrorResponses },
      },
    },
    async (request) => documents.getJob(callContext(request), request.params.id, request.params.jobId),
  );

  routes.post(
    '/api/knowledge-bases/:id/jobs/:jobId/retry',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Queue a failed or cancelled job again',
        params: jobParametersSchema,
        response: { 200: jobViewSchema('The job, queued again'), ...conflictResponses },
      },
    },
    async (request) => documents.retryJob(callContext(request), request.params.id, request.params.jobId),
  );

  routes.post(
    '/api/knowledge-bases/:id/jobs/:jobId/cancel',
    {
      schema: {
        tags: ['knowledge-bases'],
        summary: 'Cancel a pending or running job',
        params: jobParametersSchema,
        response: { 200: jobViewSchema('The job, cancelled'), ...conflictResponses },
      },
    },
    async (request) => documents.cancelJob(callContext(request), request.params.id, request.params.jobId),
  );
};
