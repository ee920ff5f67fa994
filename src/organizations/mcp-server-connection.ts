/**
 * Talks to one MCP server over Streamable HTTP with the official SDK's client: lists its tools or
 * calls one, then closes. Every request goes through the fetch it is given (the outbound guard's,
 * for a URL an organization set), under a timeout and the caller's abort signal. Failures become
 * AppErrors that name the server and the kind of failure, never a header or a stack. The SDK is
 * loaded on the first call, as the MCP server's half is (src/mcp/mcp-server-sdk.ts says why).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AppError } from '../errors/app-error.js';
import { startDeadline } from '../pipeline/bounds/deadline.js';
import type { McpToolAnswer, McpToolListing } from '../pipeline/plugin-contract/ports.js';
import { outboundRefusalIn, type OutboundFetch } from '../pipeline/upstream/outbound-fetch.js';

/** Where a server is and how to reach it; `headers` are already filled in and decrypted. */
export interface McpConnectionTarget {
  serverName: string;
  url: string;
  headers: Record<string, string>;
  fetch: OutboundFetch;
  timeoutMilliseconds: number;
  signal: AbortSignal;
}

interface McpClientSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPError;
  McpError: typeof import('@modelcontextprotocol/sdk/types.js').McpError;
}

let loading: Promise<McpClientSdk> | undefined;

async function loadClientSdk(): Promise<McpClientSdk> {
  const [client, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: transport.StreamableHTTPClientTransport,
    StreamableHTTPError: transport.StreamableHTTPError,
    McpError: types.McpError,
  };
}

/** How much of a server's own error message a tool error quotes. */
const SERVER_MESSAGE_CHARACTERS_MAXIMUM = 300;
const CLIENT_INFO = { name: 'merino', version: '1.0' };

function failureOf(error: unknown, target: McpConnectionTarget, timedOut: boolean, sdk: McpClientSdk): AppError {
  const { StreamableHTTPError, McpError } = sdk;
  const refusal = outboundRefusalIn(error);
  if (refusal !== undefined) return refusal;
  if (error instanceof AppError) return error;
  const server = `The MCP server "${target.serverName}"`;
  if (timedOut) return new AppError('upstream_timeout', `${server} did not answer within ${target.timeoutMilliseconds} ms.`);
  if (error instanceof StreamableHTTPError)
    return new AppError('upstream_error', `${server} answered with HTTP status ${error.code ?? 'unknown'}.`);
  if (error instanceof McpError)
    return new AppError('upstream_error', `${server} refused the request: ${error.message.slice(0, SERVER_MESSAGE_CHARACTERS_MAXIMUM)}`);
  return new AppError('upstream_error', `${server} could not be reached (${error instanceof Error ? error.name : 'error'}).`);
}

/** Connects, runs `work`, and closes, whatever happens; the timeout bounds the whole exchange. */
async function withClient<Result>(
  target: McpConnectionTarget,
  work: (client: Client, signal: AbortSignal) => Promise<Result>,
): Promise<Result> {
  loading ??= loadClientSdk();
  const sdk = await loading;
  const deadline = startDeadline(target.timeoutMilliseconds, target.signal);
  const signal = deadline.signal;
  const client = new sdk.Client(CLIENT_INFO);
  const transport = new sdk.StreamableHTTPClientTransport(new URL(target.url), {
    fetch: target.fetch,
    requestInit: { headers: target.headers, redirect: 'error' },
  });
  try {
    await client.connect(transport, { signal, timeout: target.timeoutMilliseconds });
    return await work(client, signal);
  } catch (error) {
    if (target.signal.aborted) throw target.signal.reason;
    throw failureOf(error, target, deadline.expired, sdk);
  } finally {
    deadline.clear();
    await client.close().catch(() => undefined);
  }
}

/** The server's tools, every page of them, up to `toolsMaximum`. */
export async function listMcpTools(target: McpConnectionTarget, toolsMaximum: number): Promise<McpToolListing[]> {
  return withClient(target, async (client, signal) => {
    const tools: McpToolListing[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: target.timeoutMilliseconds });
      for (const tool of page.tools) tools.push({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema });
      cursor = page.nextCursor;
    } while (cursor !== undefined && tools.length < toolsMaximum);
    return tools.slice(0, toolsMaximum);
  });
}

/** One content item as text the model can read: text as it is, anything else named by its kind. */
function contentText(item: { type: string; text?: unknown; mimeType?: unknown; resource?: unknown }): string {
  if (item.type === 'text' && typeof item.text === 'string') return item.text;
  if (item.type === 'resource' && item.resource !== null && typeof item.resource === 'object') {
    const resource = item.resource as { text?: unknown; uri?: unknown };
    if (typeof resource.text === 'string') return resource.text;
    return `[resource ${typeof resource.uri === 'string' ? resource.uri : ''}]`;
  }
  return `[${item.type}${typeof item.mimeType === 'string' ? ` ${item.mimeType}` : ''}]`;
}

/** Calls one tool; structured content is given as JSON when the server sent no text. */
export async function callMcpTool(
  target: McpConnectionTarget,
  toolName: string,
  argumentsObject: Record<string, unknown>,
): Promise<McpToolAnswer> {
  return withClient(target, async (client, signal) => {
    const result = await client.callTool({ name: toolName, arguments: argumentsObject }, undefined, {
      signal,
      timeout: target.timeoutMilliseconds,
    });
    const items = Array.isArray(result.content) ? (result.content as Array<{ type: string }>) : [];
    let text = items.map(contentText).join('\n');
    if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
    return { text, isError: result.isError === true };
  });
}
