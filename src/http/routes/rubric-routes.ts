/**
 * The rubrics API: CRUD over LAMB's rubric JSON, lists of one's own and one's organization's
 * rubrics, LAMB-compatible JSON import, and export as JSON or markdown. The documented body
 * schemas (rubric-request-schemas.ts) describe LAMB's format for the OpenAPI document; the bodies themselves are checked by
 * rubric-document.ts, which applies LAMB's rules and names every problem by its path.
 */
import type { FastifyPluginAsync, FastifySchemaCompiler } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { rubricListFilters } from '../../rubrics/rubric-list-schemas.js';
import {
  exportQuerySchema,
  itemQuerySchema,
  previewQuerySchema,
  rubricFields,
  rubricIdParametersSchema,
  visibilityField,
} from '../../rubrics/rubric-request-schemas.js';
import {
  rubricExportResponse,
  rubricPreviewViewSchema,
  rubricSummaryViewSchema,
  rubricViewSchema,
} from '../../rubrics/rubric-view-schemas.js';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, noContentResponse } from '../schemas.js';
import { pageSchema } from '../../validation/shape-fragments.js';
import { validatorCompiler } from '../validation.js';

/**
 * The bodies of create, import and update are checked as JSON objects only (see
 * objectBodyValidator), so that is all their type may claim; rubric-document.ts checks the rest.
 */
interface RubricBody {
  Body: Record<string, unknown>;
}

/** A route generic replaces the schema's types for every part, so the update's parameters are derived here. */
interface RubricUpdate extends RubricBody {
  Params: FromSchema<typeof rubricIdParametersSchema>;
  Querystring: FromSchema<typeof itemQuerySchema>;
}

/**
 * The route's body schema documents LAMB's format; only "is it a JSON object" is checked here, so
 * every rule is applied in one place (rubric-document.ts) with LAMB's wording and full paths.
 */
function objectBodyValidator(minProperties = 0): FastifySchemaCompiler<object> {
  return (route) => validatorCompiler(route.httpPart === 'body' ? { ...route, schema: { type: 'object', minProperties } } : route);
}

/** The preview's body is a rubric like create's; its query names the format. */
interface RubricPreviewRequest extends RubricBody {
  Querystring: FromSchema<typeof previewQuerySchema>;
}

/** What the rubric routes use: nothing else of the service container reaches them. */
export type RubricRouteServices = Pick<Services, 'rubrics' | 'settings'>;

export const rubricRoutes: FastifyPluginAsync<RubricRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post<RubricBody>(
    '/api/rubrics',
    {
      schema: {
        tags: ['rubrics'],
        summary: 'Create a rubric from LAMB rubric JSON',
        description: 'Missing rubricId, criterion ids and level ids are generated; the answer carries them all.',
        body: {
          type: 'object',
          properties: { ...rubricFields, ...visibilityField },
          required: ['title', 'criteria', 'scoringType', 'maxScore'],
          additionalProperties: false,
        },
        response: { 201: rubricViewSchema('The new rubric, with every generated id'), ...commonErrorResponses, 409: errorResponseSchema },
      },
      validatorCompiler: objectBodyValidator(),
    },
    async (request, reply) => reply.status(201).send(await services.rubrics.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/rubrics',
    {
      schema: {
        tags: ['rubrics'],
        summary: "List your rubrics (scope=mine) or your organization's (scope=organization)",
        querystring: pageQuerySchema(services.settings.pageSizeMaximum, rubricListFilters),
        response: { 200: pageSchema('A page of rubrics', rubricSummaryViewSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.rubrics.list(callContext(request), request.query),
  );

  routes.post<RubricBody>(
    '/api/rubrics/import',
    {
      schema: {
        tags: ['rubrics'],
        summary: 'Import LAMB rubric JSON (or a LAMB rubric row with rubric_data) as a new private rubric with a new rubricId',
        body: { type: 'object' },
        response: { 201: rubricViewSchema('The imported rubric'), ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.rubrics.import(callContext(request), request.body)),
  );

  routes.post<RubricPreviewRequest>(
    '/api/rubrics/preview',
    {
      schema: {
        tags: ['rubrics'],
        summary: 'Render the evaluation document rubric_rag would put in {rubric} for a rubric not saved yet',
        description: 'The body is a rubric as create takes it, checked by the same rules; nothing is stored.',
        querystring: previewQuerySchema,
        body: {
          type: 'object',
          properties: { ...rubricFields, ...visibilityField },
          required: ['title', 'criteria', 'scoringType', 'maxScore'],
          additionalProperties: false,
        },
        response: { 200: rubricPreviewViewSchema, ...commonErrorResponses },
      },
      validatorCompiler: objectBodyValidator(),
    },
    async (request) => services.rubrics.preview(callContext(request), request.body, request.query.format),
  );

  routes.get(
    '/api/rubrics/:rubricId',
    {
      schema: {
        tags: ['rubrics'],
        summary: 'Get a rubric',
        params: rubricIdParametersSchema,
        querystring: itemQuerySchema,
        response: { 200: rubricViewSchema('The rubric'), ...commonErrorResponses },
      },
    },
    async (request) => services.rubrics.get(callContext(request), request.params.rubricId, request.query.organization_id),
  );

  routes.patch<RubricUpdate>(
    '/api/rubrics/:rubricId',
    {
      schema: {
        tags: ['rubrics'],
        summary: 'Replace some fields of a rubric; the result is checked by LAMB rules as a whole',
        params: rubricIdParametersSchema,
        querystring: itemQuerySchema,
        body: { type: 'object', properties: { ...rubricFields, ...visibilityField }, additionalProperties: false, minProperties: 1 },
        response: { 200: rubricViewSchema('The rubric as changed'), ...commonErrorResponses },
      },
      validatorCompiler: objectBodyValidator(1),
    },
    async (request) => services.rubrics.update(callContext(request), request.params.rubricId, request.body, request.query.organization_id),
  );

  routes.delete(
    '/api/rubrics/:rubricId',
    {
      schema: {
        tags: ['rubrics'],
        summary: 'Delete a rubric (soft delete; its rubricId is never reused in its organization)',
        params: rubricIdParametersSchema,
        querystring: itemQuerySchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.rubrics.delete(callContext(request), request.params.rubricId, request.query.organization_id);
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/rubrics/:rubricId/export',
    {
      schema: {
        tags: ['rubrics'],
        summary: 'Export as LAMB rubric JSON (format=json) or as a markdown document (format=markdown)',
        params: rubricIdParametersSchema,
        querystring: exportQuerySchema,
        response: { 200: rubricExportResponse, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      const exported = await services.rubrics.export(
        callContext(request),
        request.params.rubricId,
        request.query.format,
        request.query.organization_id,
      );
      reply.header('content-disposition', `attachment; filename="${exported.fileName}"`);
      if (exported.format === 'markdown') return reply.type('text/markdown; charset=utf-8').send(exported.markdown);
      return reply.send(exported.document);
    },
  );
};
