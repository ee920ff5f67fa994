/**
 * `/mcp`: Merino's assistants over MCP's Streamable HTTP transport (docs/mcp.md). Every POST gets a
 * server built for its caller and a transport of its own, so any process behind a load balancer
 * answers any request. Sessions are optional and live in the store: an `initialize` opens one (its
 * id comes back as `Mcp-Session-Id`), later requests that carry it must come from the same
 * credential, `GET` with it opens the stream that says when the caller's lists change, and `DELETE`
 * ends it; requests without one are served statelessly, as before. The caller is authenticated
 * exactly as the REST API does it (a bearer session token or API key); an anonymous or bad
 * credential gets 401 with a JSON-RPC error body, as MCP clients expect, and a browser page from a
 * foreign origin gets 403 (mcp-origin-check.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { CallContext } from '../../auth/call-context.js';
import { requireOwnPasswordChosen } from '../../auth/permissions.js';
import { AppError, isAppError } from '../../errors/app-error.js';
import { mcpServerSdk } from '../../mcp/mcp-server-sdk.js';
import { credentialKeyOf } from '../../mcp/mcp-service.js';
import type { Services } from '../../services.js';
import { bearerValue } from '../authentication.js';
import { streamListChanges } from '../mcp/mcp-list-changed-stream.js';
import { mcpOriginAllowed } from '../mcp/mcp-origin-check.js';

export type McpRouteServices = Pick<Services, 'authenticator' | 'mcp' | 'drain' | 'settings'>;

/** JSON-RPC's "server error" range: MCP clients read the HTTP status, the body says why. */
const JSON_RPC_SERVER_ERROR = -32000;
const SESSION_HEADER = 'mcp-session-id';
const SESSION_NOT_FOUND = 'No such MCP session: it ended, expired, or belongs to another credential. Initialize a new one.';

function jsonRpcError(reply: FastifyReply, status: number, message: string): FastifyReply {
  if (status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: JSON_RPC_SERVER_ERROR, message }, id: null });
}

interface Caller {
  context: CallContext;
  bearer: string;
}

async function callerOf(request: FastifyRequest, services: McpRouteServices): Promise<Caller> {
  const bearer = bearerValue(request);
  if (bearer === undefined) throw new AppError('unauthenticated', 'Send "Authorization: Bearer <API key or session token>".');
  const identity = await services.authenticator.authenticate(bearer);
  requireOwnPasswordChosen(identity);
  return { context: { identity, requestId: request.id }, bearer };
}

/** The caller, or undefined once the reply already says why not (a foreign origin, a bad credential). */
async function admittedCaller(request: FastifyRequest, reply: FastifyReply, services: McpRouteServices): Promise<Caller | undefined> {
  const origin = request.headers.origin;
  if (!mcpOriginAllowed({ origin, host: request.headers.host, allowedOrigins: services.settings.corsOrigins })) {
    await jsonRpcError(reply, 403, `Requests from the web origin ${JSON.stringify(origin?.slice(0, 200))} may not use this MCP server.`);
    return undefined;
  }
  try {
    return await callerOf(request, services);
  } catch (error) {
    if (!isAppError(error)) throw error;
    await jsonRpcError(reply, error.status, error.message);
    return undefined;
  }
}

function sessionIdOf(request: FastifyRequest): string | undefined {
  const value = request.headers[SESSION_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
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
    const caller = await admittedCaller(request, reply, services);
    if (caller === undefined) return reply;
    const { context } = caller;
    const { isInitializeRequest, StreamableHTTPServerTransport } = await mcpServerSdk();
    const sessionId = sessionIdOf(request);
    if (sessionId !== undefined) {
      if (!(await services.mcp.sessions.use(context, sessionId))) return jsonRpcError(reply, 404, SESSION_NOT_FOUND);
      reply.header(SESSION_HEADER, sessionId);
    } else if (isInitializeRequest(request.body)) {
      reply.header(SESSION_HEADER, await services.mcp.sessions.open(context));
    }
    cancelNamedCalls(context, request.body, services);
    const server = await services.mcp.serverFor(context);
    // The transport itself keeps no session: the store does, checked above, so any process serves it.
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

  app.get('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const caller = await admittedCaller(request, reply, services);
    if (caller === undefined) return reply;
    const sessionId = sessionIdOf(request);
    if (sessionId === undefined) {
      // Without a session there is no stream to open, as the transport's specification allows.
      reply.header('allow', 'POST');
      return jsonRpcError(reply, 405, 'Open a session first (POST an initialize request), then GET with its Mcp-Session-Id.');
    }
    if (!(request.headers.accept ?? '').includes('text/event-stream'))
      return jsonRpcError(reply, 406, 'The notification stream is text/event-stream: send "Accept: text/event-stream".');
    if (services.drain.streamsEnd.aborted) return jsonRpcError(reply, 503, 'This server is stopping; connect again.');
    if (!(await services.mcp.sessions.use(caller.context, sessionId))) return jsonRpcError(reply, 404, SESSION_NOT_FOUND);
    await streamListChanges({
      reply,
      context: caller.context,
      bearer: caller.bearer,
      sessionId,
      services,
      pollMilliseconds: services.settings.mcpListChangedPollMilliseconds,
    });
    return reply;
  });

  app.delete('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const caller = await admittedCaller(request, reply, services);
    if (caller === undefined) return reply;
    const sessionId = sessionIdOf(request);
    if (sessionId === undefined) return jsonRpcError(reply, 400, 'Send the Mcp-Session-Id of the session to end.');
    if (!(await services.mcp.sessions.end(caller.context, sessionId))) return jsonRpcError(reply, 404, SESSION_NOT_FOUND);
    return reply.status(204).send();
  });
};
