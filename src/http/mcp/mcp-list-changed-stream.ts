/**
 * An MCP session's notification stream (`GET /mcp` with `Mcp-Session-Id`, docs/mcp.md): every
 * MCP_LIST_CHANGED_POLL_MS it reads from the store what tools/list and prompts/list would answer
 * the caller now, and sends `notifications/tools/list_changed` or `notifications/prompts/list_changed`
 * when that differs from the last look. Reading the store, not listening in memory, is what makes a
 * change made through any process reach a stream held by any other. Each look authenticates the
 * caller's credential and the session again, so a revoked key, an ended or expired session, or a
 * stopping server ends the stream; a comment line every 15 s keeps proxies from closing it.
 */
import type { FastifyReply } from 'fastify';
import type { CallContext } from '../../auth/call-context.js';
import { requireOwnPasswordChosen } from '../../auth/permissions.js';
import type { McpListFingerprints } from '../../mcp/mcp-service.js';
import type { Services } from '../../services.js';

/** How long a stream may stay silent before a comment line keeps it open through proxies. */
const KEEP_ALIVE_MILLISECONDS = 15_000;

export interface ListChangedStream {
  reply: FastifyReply;
  context: CallContext;
  bearer: string;
  sessionId: string;
  services: Pick<Services, 'authenticator' | 'mcp' | 'drain'>;
  pollMilliseconds: number;
}

function notification(method: string): string {
  return `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method })}\n\n`;
}

/** The caller again, as the credential stands now; undefined once it no longer signs in or the session is gone. */
async function currentCaller(stream: ListChangedStream): Promise<CallContext | undefined> {
  try {
    const identity = await stream.services.authenticator.authenticate(stream.bearer);
    requireOwnPasswordChosen(identity);
    const context = { identity, requestId: stream.context.requestId };
    return (await stream.services.mcp.sessions.use(context, stream.sessionId)) ? context : undefined;
  } catch {
    return undefined;
  }
}

export async function streamListChanges(stream: ListChangedStream): Promise<void> {
  const { reply, services } = stream;
  let last: McpListFingerprints = await services.mcp.listFingerprints(stream.context);
  reply.hijack();
  // A hijacked reply skips Fastify's header sending: carry over what hooks set (security headers, request id).
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'mcp-session-id': stream.sessionId,
  });
  reply.raw.write(': listening for list changes\n\n');

  let ended = false;
  let pollTimer: NodeJS.Timeout | undefined;
  const write = (text: string): void => {
    if (!ended && !reply.raw.destroyed && !reply.raw.writableEnded) reply.raw.write(text);
  };
  const keepAlive = setInterval(() => write(': still listening\n\n'), KEEP_ALIVE_MILLISECONDS);
  const end = (): void => {
    if (ended) return;
    ended = true;
    clearInterval(keepAlive);
    clearTimeout(pollTimer);
    services.drain.streamsEnd.removeEventListener('abort', end);
    if (!reply.raw.writableEnded) reply.raw.end();
  };
  services.drain.streamsEnd.addEventListener('abort', end, { once: true });
  if (services.drain.streamsEnd.aborted) end();
  reply.raw.on('close', end);

  const poll = async (): Promise<void> => {
    // A look already under way when the stream ended schedules one more, which stops here.
    if (ended) return;
    const context = await currentCaller(stream);
    if (context === undefined) {
      end();
      return;
    }
    const now = await services.mcp.listFingerprints(context).catch(() => last);
    if (now.tools !== last.tools) write(notification('notifications/tools/list_changed'));
    if (now.prompts !== last.prompts) write(notification('notifications/prompts/list_changed'));
    last = now;
    pollTimer = setTimeout(() => void poll(), stream.pollMilliseconds);
  };
  pollTimer = setTimeout(() => void poll(), stream.pollMilliseconds);
}
