/**
 * An organization's MCP servers (docs/mcp-servers-as-tools.md): its admins register, change and
 * remove them; its creators list them by name and see each one's tools, for the studio.
 */
import type { FastifyPluginAsync } from 'fastify';
import {
  mcpServerPatchSchema,
  mcpServerToolsSchema,
  mcpServerViewSchema,
  newMcpServerSchema,
} from '../../organizations/mcp-server-schemas.js';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { idSchema, pageSchema } from '../../validation/shape-fragments.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';

const TAGS = ['mcp-servers'];
/** What the MCP server routes use: nothing else of the service container reaches them. */
export type McpServerRouteServices = Pick<Services, 'mcpServers' | 'settings'>;

export const mcpServerRoutes: FastifyPluginAsync<McpServerRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);
  const listQuery = pageBoundsQuerySchema(services.settings.pageSizeMaximum, {
    organization_id: { ...idSchema, description: "default: the caller's organization" },
  });

  routes.get(
    '/api/mcp-servers',
    {
      schema: {
        tags: TAGS,
        summary: "The organization's MCP servers (URLs and header names for its admins only)",
        querystring: listQuery,
        response: { 200: pageSchema('A page of MCP servers, oldest first', mcpServerViewSchema), ...commonErrorResponses },
      },
    },
    async (request) => services.mcpServers.list(callContext(request), request.query),
  );

  routes.post(
    '/api/mcp-servers',
    {
      schema: {
        tags: TAGS,
        summary: 'Register an MCP server; header values are stored encrypted and never shown again',
        body: newMcpServerSchema,
        response: { 201: mcpServerViewSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.mcpServers.create(callContext(request), request.body)),
  );

  routes.patch(
    '/api/mcp-servers/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Change an MCP server; a header sent without a value keeps its stored value',
        params: idParametersSchema,
        body: mcpServerPatchSchema,
        response: { 200: mcpServerViewSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.mcpServers.update(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/mcp-servers/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Remove an MCP server; assistants using it are no longer offered its tools',
        params: idParametersSchema,
        response: { 204: noContentResponse('Removed'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.mcpServers.remove(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );

  routes.get(
    '/api/mcp-servers/:id/tools',
    {
      schema: {
        tags: TAGS,
        summary: "The tools an MCP server lists, for choosing them in an assistant's tools",
        params: idParametersSchema,
        response: { 200: mcpServerToolsSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.mcpServers.tools(callContext(request), request.params.id),
  );
};
