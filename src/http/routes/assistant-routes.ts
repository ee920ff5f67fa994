/** The assistants API: CRUD, publish, shares, assistant-tool candidates, LAMB-compatible export and import. */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import {
  assistantListFilters,
  assistantPatchSchema,
  assistantViewSchema,
  conversionBodySchema,
  conversionPreviewSchema,
  importPreviewSchema,
  importQuerySchema,
  newAssistantSchema,
  publishBodySchema,
  sharesBodySchema,
  sharesSchema,
  toolCandidatesSchema,
} from '../../assistants/assistant-schemas.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';
import { openObjectSchema, pageSchema } from '../../validation/shape-fragments.js';

/** What the assistant routes use: nothing else of the service container reaches them. */
export type AssistantRouteServices = Pick<
  Services,
  'assistants' | 'assistantSharing' | 'assistantTransfer' | 'assistantConversion' | 'settings'
>;

export const assistantRoutes: FastifyPluginAsync<AssistantRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/assistants',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Create an assistant',
        body: newAssistantSchema,
        response: { 201: assistantViewSchema('The new assistant'), ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.assistants.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/assistants',
    {
      schema: {
        tags: ['assistants'],
        summary: 'List the assistants you may see',
        querystring: pageQuerySchema(services.settings.pageSizeMaximum, assistantListFilters),
        response: { 200: pageSchema('A page of the assistants you may see', assistantViewSchema('an assistant')), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.list(callContext(request), request.query),
  );

  routes.post(
    '/api/assistants/import',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Import a LAMB or Merino assistant export as a new assistant; ?dry_run=true previews it and writes nothing',
        querystring: importQuerySchema,
        body: { type: 'object' },
        response: { 200: importPreviewSchema, 201: assistantViewSchema('The imported assistant'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      if (request.query.dry_run === true) return services.assistantTransfer.previewImport(context, request.body);
      return reply.status(201).send(await services.assistantTransfer.import(context, request.body));
    },
  );

  routes.get(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Get an assistant',
        params: idParametersSchema,
        response: { 200: assistantViewSchema('The assistant'), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Change some fields of an assistant (the owner cannot change)',
        params: idParametersSchema,
        body: assistantPatchSchema,
        response: { 200: assistantViewSchema('The assistant as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.update(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/assistants/:id',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Delete an assistant (soft delete)',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.assistants.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.put(
    '/api/assistants/:id/publish',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Publish or unpublish an assistant to its organization',
        params: idParametersSchema,
        body: publishBodySchema,
        response: { 200: assistantViewSchema('The assistant as published or unpublished'), ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.publish(callContext(request), request.params.id, request.body.published),
  );

  routes.get(
    '/api/assistants/:id/shares',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Who the assistant is shared with',
        params: idParametersSchema,
        response: { 200: sharesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistantSharing.getShares(callContext(request), request.params.id),
  );

  routes.put(
    '/api/assistants/:id/shares',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Replace the set of users the assistant is shared with',
        params: idParametersSchema,
        body: sharesBodySchema,
        response: { 200: sharesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistantSharing.putShares(callContext(request), request.params.id, request.body.user_emails),
  );

  routes.get(
    '/api/assistants/:id/tool-candidates',
    {
      schema: {
        tags: ['assistants'],
        summary:
          "Which assistants this assistant's owner may use as its assistant tools (available ones first, the others with the reason)",
        params: idParametersSchema,
        response: { 200: toolCandidatesSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.assistants.toolCandidates(callContext(request), request.params.id),
  );

  routes.post(
    '/api/assistants/:id/convert',
    {
      schema: {
        tags: ['assistants'],
        summary:
          'Convert a classic assistant to multi-tool: a dry run previews; otherwise a new assistant "<name> (multi-tool)" is created and the classic one is left untouched',
        params: idParametersSchema,
        body: conversionBodySchema,
        response: {
          200: conversionPreviewSchema,
          201: assistantViewSchema('The new multi-tool assistant, owned by the caller'),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const context = callContext(request);
      if (request.body.dry_run) return services.assistantConversion.previewConversion(context, request.params.id);
      return reply.status(201).send(await services.assistantConversion.convert(context, request.params.id));
    },
  );

  routes.get(
    '/api/assistants/:id/export',
    {
      schema: {
        tags: ['assistants'],
        summary: 'Export as LAMB-compatible JSON',
        params: idParametersSchema,
        response: {
          200: openObjectSchema("The assistant as a LAMB export file (JSON, sent as an attachment); its keys follow LAMB's export format"),
          ...commonErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { document, fileName } = await services.assistantTransfer.export(callContext(request), request.params.id);
      return reply.header('content-disposition', `attachment; filename="${fileName}"`).send(document);
    },
  );
};
