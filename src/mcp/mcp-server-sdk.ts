/**
 * The server half of the official MCP SDK, loaded when the first MCP request arrives rather than
 * when a process starts: most processes never serve MCP, and the SDK with the zod schemas it is
 * built on was some 200 of the script files every server opened at start (docs/mcp.md has the
 * figures). Types come from the SDK as usual; only its values wait.
 */
import type * as McpServerModule from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as StreamableHttpModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

export type McpServerSdk = Pick<typeof McpServerModule, 'McpServer'> &
  Pick<typeof StreamableHttpModule, 'StreamableHTTPServerTransport'> &
  Pick<
    typeof TypesModule,
    | 'CallToolRequestSchema'
    | 'CompleteRequestSchema'
    | 'ErrorCode'
    | 'GetPromptRequestSchema'
    | 'ListPromptsRequestSchema'
    | 'ListToolsRequestSchema'
    | 'McpError'
    | 'isInitializeRequest'
  >;

let loading: Promise<McpServerSdk> | undefined;

async function load(): Promise<McpServerSdk> {
  const [server, transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { ...types, McpServer: server.McpServer, StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport };
}

/** The SDK's server values, loading them the first time they are asked for. */
export function mcpServerSdk(): Promise<McpServerSdk> {
  loading ??= load();
  return loading;
}
