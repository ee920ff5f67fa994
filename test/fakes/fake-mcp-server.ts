// An MCP server for tests, built with the official SDK and served over Streamable HTTP on
// loopback (stateless: one SDK server and transport per request), so Merino's MCP client and
// the `mcp` tool are tested against the real wire format. Its tools:
//
//   add {a, b}          the sum, as text
//   slow {}             answers "done" after `slowMilliseconds` (a tool that times out)
//   fail {}             an `isError` answer: "the grading database is down"
//   broken_schema {}    listed with an input schema that is not valid JSON Schema
//
// Every request's headers are recorded, so a test can see what Merino sent.
import type http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { listenOnLoopback, pause } from './fake-http.js';

export interface FakeMcpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  /** The headers of every request received, oldest first. */
  headers: http.IncomingHttpHeaders[];
  /** The tool calls received, by tool name. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  slowMilliseconds: number;
  reset(): void;
  close(): Promise<void>;
}

const TOOLS = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  },
  { name: 'slow', description: 'Takes its time.', inputSchema: { type: 'object', properties: {} } },
  { name: 'fail', description: 'Always fails.', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'broken_schema',
    description: 'Lists a schema no validator accepts.',
    inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } },
  },
] as const;

function serverFor(fake: FakeMcpServer, signal: AbortSignal): McpServer {
  const mcpServer = new McpServer({ name: 'fake-mcp', version: '1.0' }, { capabilities: { tools: {} } });
  // Raw handlers rather than registerTool, so a tool can list a schema no validator accepts.
  const server = mcpServer.server;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS.map((tool) => ({ ...tool })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const argumentsObject = request.params.arguments ?? {};
    fake.calls.push({ name: request.params.name, arguments: argumentsObject });
    switch (request.params.name) {
      case 'add':
        return { content: [{ type: 'text', text: String(Number(argumentsObject.a) + Number(argumentsObject.b)) }] };
      case 'slow':
        await pause(fake.slowMilliseconds, signal);
        return { content: [{ type: 'text', text: 'done' }] };
      case 'fail':
        return { isError: true, content: [{ type: 'text', text: 'the grading database is down' }] };
      default:
        return { isError: true, content: [{ type: 'text', text: `unknown tool ${request.params.name}` }] };
    }
  });
  return mcpServer;
}

export async function startFakeMcpServer(): Promise<FakeMcpServer> {
  const fake: FakeMcpServer = {
    url: '',
    headers: [],
    calls: [],
    slowMilliseconds: 2_000,
    reset() {
      fake.headers.length = 0;
      fake.calls.length = 0;
    },
    close: async () => undefined,
  };
  const loopback = await listenOnLoopback(async (request, response, shutdownSignal) => {
    fake.headers.push(request.headers);
    const server = serverFor(fake, shutdownSignal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  fake.url = `${loopback.origin}/mcp`;
  fake.close = () => loopback.close();
  return fake;
}
