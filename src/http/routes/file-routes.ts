/**
 * The files API: upload one text file (multipart/form-data, field `file`), list the files the
 * caller may see, show the start of one's text, list the assistants that use one, delete one (one in use only when confirmed). The upload streams to disk through multipart-upload.ts.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { fileDeletionQuerySchema, fileTextSchema, fileUsageSchema, fileViewSchema } from '../../files/file-schemas.js';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { pageSchema } from '../../validation/shape-fragments.js';
import { callContext } from '../authentication.js';
import { documentOnlyBodyValidator, SEND_AS_MULTIPART, uploadBodySchema, withUploadedFile } from '../multipart-upload.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, noContentResponse } from '../schemas.js';

/** What the files routes use: nothing else of the service container reaches them. */
export type FileRouteServices = Pick<Services, 'files' | 'generatedImages' | 'settings'>;

export const fileRoutes: FastifyPluginAsync<FileRouteServices> = async (app, services) => {
  const bytesMaximum = services.settings.fileUploadBytesMaximum;
  const routes = typedRoutes(app);

  routes.post(
    '/api/files',
    {
      schema: {
        tags: ['files'],
        summary: 'Upload a text file for the single-file tool',
        description: `${SEND_AS_MULTIPART} Accepted are UTF-8 .txt, .md, .json, .csv and .html files of at most ${bytesMaximum} bytes; the content must match the extension.`,
        consumes: ['multipart/form-data'],
        body: uploadBodySchema('a UTF-8 .txt, .md, .json, .csv or .html file'),
        response: { 201: fileViewSchema, ...commonErrorResponses, 413: errorResponseSchema, 415: errorResponseSchema },
      },
      validatorCompiler: documentOnlyBodyValidator,
    },
    async (request, reply) => {
      const context = callContext(request);
      const file = await withUploadedFile(request, reply, bytesMaximum, (upload) => services.files.upload(context, upload));
      return reply.status(201).send(file);
    },
  );

  routes.get(
    '/api/files',
    {
      schema: {
        tags: ['files'],
        summary: 'List your files, newest first (admins: their organization’s; system admins: all)',
        querystring: pageBoundsQuerySchema(services.settings.pageSizeMaximum),
        response: {
          200: pageSchema('A page of your files', fileViewSchema),
          ...commonErrorResponses,
        },
      },
    },
    async (request) => services.files.list(callContext(request), request.query),
  );

  routes.get(
    '/api/files/:id/usage',
    {
      schema: {
        tags: ['files'],
        summary: 'Which assistants use a file (their single-file tools name it)',
        params: idParametersSchema,
        response: { 200: fileUsageSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.files.usage(callContext(request), request.params.id),
  );

  routes.get(
    '/api/files/:id/text',
    {
      schema: {
        tags: ['files'],
        summary: `A file's text for a preview, up to ${services.settings.filePreviewCharactersMaximum} characters (FILE_PREVIEW_CHARACTERS)`,
        params: idParametersSchema,
        response: { 200: fileTextSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.files.preview(callContext(request), request.params.id),
  );

  routes.get(
    '/api/files/:id/content',
    {
      schema: {
        tags: ['files'],
        summary: "A generated image's bytes (docs/image-generation.md); 404 for files that are not images",
        description:
          'What the markdown image links in answers of image-generating assistants point to: served only to whoever may read the file (its owner, their organization’s admins).',
        params: idParametersSchema,
        response: {
          200: {
            description: 'The image, with its own content type',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
          },
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const content = await services.generatedImages.content(callContext(request), request.params.id);
      return reply
        .header('content-type', content.contentType)
        .header('content-length', content.sizeBytes)
        .header('cache-control', 'private, max-age=3600')
        .send(Readable.from(content.bytes));
    },
  );

  routes.delete(
    '/api/files/:id',
    {
      schema: {
        tags: ['files'],
        summary: 'Delete a file; one that assistants use only with ?force=true (409 file_in_use otherwise)',
        params: idParametersSchema,
        querystring: fileDeletionQuerySchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses, 409: errorResponseSchema },
      },
    },
    async (request, reply) => {
      await services.files.delete(callContext(request), request.params.id, { force: request.query.force });
      return reply.status(204).send();
    },
  );
};
