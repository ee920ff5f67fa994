/**
 * `/mcp`: Merino's assistants over MCP's Streamable HTTP transport (docs/mcp.md), served
 * statelessly: each POST gets a server built for its caller and a transport of its own, so any
 * process behind a load balancer answers any request and nothing is kept between them. The caller
 * is authenticated exactly as the REST API does it (a bearer session token or API key); an
 * anonymous or bad credential gets 401 with a JSON-RPC error body, as MCP clients expect.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallContext } from '../../auth/call-context.js';
import { requireOwnPasswordChosen } from '../../auth/permissions.js';
import { AppError, isAppError } from '../../errors/app-error.js';
import { credentialKeyOf } from '../../mcp/mcp-service.js';
import type { Services } from '../../services.js';
import { bearerValue } from '../authentication.js';

export type McpRouteServices = Pick<Services, 'authenticator' | 'mcp'>;

/** JSON-RPC's "server error" range: MCP clients read the HTTP status, the body says why. */
const JSON_RPC_SERVER_ERROR = -32000;

function jsonRpcError(reply: FastifyReply, status: number, message: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: JSON_RPC_SERVER_ERROR, message }, id: null });
}

async function callerOf(request: FastifyRequest, services: McpRouteServices): Promise<CallContext> {
  const bearer = bearerValue(request);
  if (bearer === undefined) throw new AppError('unauthenticated', 'Send "Authorization: Bearer <API key or session token>".');
  const identity = await services.authenticator.authenticate(bearer);
  requireOwnPasswordChosen(identity);
  return { identity, requestId: request.id };
}

/** A cancellation of a call running here: filed under the caller's credential, so nobody else's call is touched. */
function cancelNamedCalls(context: CallContext, body: unknown, services: McpRouteServices): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
    const requestId = params?.requestId;
    if (method === 'notifications/cancelled' && (typeof requestId === 'string' || typeof requestId === 'number'))
      services.mcp.cancellations.cancel(credentialKeyOf(context), requestId);
  }
}

export const mcpRoutes: FastifyPluginAsync<McpRouteServices> = async (app, services) => {
  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    let context: CallContext;
    try {
      context = await callerOf(request, services);
    } catch (error) {
      if (!isAppError(error)) throw error;
      return jsonRpcError(reply, error.status, error.message);
    }
    cancelNamedCalls(context, request.body, services);
    const server = services.mcp.serverFor(context);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.hijack();
    // A hijacked reply skips Fastify's header sending: carry over what hooks set (security headers, request id).
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  });

  // Stateless: there is no session to open a stream for or to end.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('allow', 'POST');
    return jsonRpcError(reply, 405, 'This MCP server is stateless: send every message with POST.');
  };
  app.get('/mcp', { schema: { hide: true } }, notAllowed);
  app.delete('/mcp', { schema: { hide: true } }, notAllowed);
};
