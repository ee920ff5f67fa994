/**
 * The templates API (docs/templates.md): the library's list with its filters, read, create, edit,
 * delete and duplicate, and "save as template" from an assistant or a rubric. Saving names its
 * source in the path (POST /api/assistants/{id}/save-as-template, POST
 * /api/rubrics/{rubricId}/save-as-template), so the source's own access rule is checked on its
 * own route and the body only describes the new template.
 */
import type { FastifyPluginAsync } from 'fastify';
import { itemQuerySchema, rubricIdParametersSchema } from '../../rubrics/rubric-request-schemas.js';
import type { Services } from '../../services.js';
import {
  newTemplateSchema,
  saveAsTemplateSchema,
  templateListFilters,
  templatePatchSchema,
  templateSummarySchema,
  templateViewSchema,
} from '../../templates/template-schemas.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { pageSchema } from '../../validation/shape-fragments.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';

/** What the template routes use: nothing else of the service container reaches them. */
export type TemplateRouteServices = Pick<Services, 'templates' | 'settings'>;

export const templateRoutes: FastifyPluginAsync<TemplateRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/templates',
    {
      schema: {
        tags: ['templates'],
        summary: 'Create a prompt template or a rubric template',
        description:
          'A prompt template takes system_prompt and prompt_template (at least one not empty); a rubric template takes rubric. Only system admins may create system-wide templates.',
        body: newTemplateSchema,
        response: { 201: templateViewSchema('The new template'), ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.templates.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/templates',
    {
      schema: {
        tags: ['templates'],
        summary: "List the templates you may use: system-wide ones, your organization's shared ones and your own",
        querystring: pageQuerySchema(services.settings.pageSizeMaximum, templateListFilters),
        response: { 200: pageSchema('A page of templates, newest first', templateSummarySchema), ...commonErrorResponses },
      },
    },
    async (request) => services.templates.list(callContext(request), request.query),
  );

  routes.get(
    '/api/templates/:id',
    {
      schema: {
        tags: ['templates'],
        summary: 'Get a template with its content',
        params: idParametersSchema,
        response: { 200: templateViewSchema('The template'), ...commonErrorResponses },
      },
    },
    async (request) => services.templates.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/templates/:id',
    {
      schema: {
        tags: ['templates'],
        summary: "Change some fields of a template; its kind never changes, and content fields must be its kind's",
        params: idParametersSchema,
        body: templatePatchSchema,
        response: { 200: templateViewSchema('The template as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.templates.update(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/templates/:id',
    {
      schema: {
        tags: ['templates'],
        summary: 'Delete a template',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.templates.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.post(
    '/api/templates/:id/duplicate',
    {
      schema: {
        tags: ['templates'],
        summary: 'Make your own personal copy of a template you may read, named "<name> (copy)"',
        params: idParametersSchema,
        response: { 201: templateViewSchema('Your copy'), ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.templates.duplicate(callContext(request), request.params.id)),
  );

  routes.post(
    '/api/assistants/:id/save-as-template',
    {
      schema: {
        tags: ['templates'],
        summary: "Save an assistant's system prompt and prompt template as a new prompt template",
        description: "Needs the assistant's configuration (owner, shared users, admins). Name and description default to the assistant's.",
        params: idParametersSchema,
        body: saveAsTemplateSchema,
        response: { 201: templateViewSchema('The new prompt template'), ...commonErrorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.templates.saveAssistant(callContext(request), request.params.id, request.body)),
  );

  routes.post(
    '/api/rubrics/:rubricId/save-as-template',
    {
      schema: {
        tags: ['templates'],
        summary: "Save a rubric's content as a new rubric template",
        description: 'Needs read access to the rubric. Name and description default to its title and description.',
        params: rubricIdParametersSchema,
        querystring: itemQuerySchema,
        body: saveAsTemplateSchema,
        response: { 201: templateViewSchema('The new rubric template'), ...commonErrorResponses },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await services.templates.saveRubric(callContext(request), request.params.rubricId, request.body, request.query.organization_id),
        ),
  );
};
