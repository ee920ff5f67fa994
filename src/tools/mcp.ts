/**
 * mcp — tools of an MCP server the organization registered (docs/mcp-servers-as-tools.md),
 * offered to the model as function tools: `{type: "mcp", config: {server_id, tools: [...]}}`
 * offers each chosen tool as `mcp_<server_id>_<tool>`, with the input schema the server lists,
 * once that schema is known to be a JSON Schema object. A chosen tool the server no longer lists,
 * or whose schema is not valid, is not offered, for a reason the trace keeps. An `isError` answer,
 * a timeout or an unreachable server is an error the model reads, never a failed chat.
 */
import { AppError } from '../errors/app-error.js';
import { defineTool, sanitizeFunctionName, type FunctionDescription, type ToolContext } from '../pipeline/plugin-api.js';
import { createAjv } from '../validation/create-ajv.js';

/** A tool's description as the model sees it; a longer one is cut. */
const DESCRIPTION_CHARACTERS_MAXIMUM = 1_024;
/** How much of an `isError` answer the model reads. */
const ERROR_TEXT_CHARACTERS_MAXIMUM = 2_000;

const schemaChecker = createAjv({ strict: false });

const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['server_id', 'tools'],
  properties: {
    server_id: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
    tools: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 128 } },
  },
} as const;

function functionNameOf(serverId: number, toolName: string): string {
  return sanitizeFunctionName(`mcp_${serverId}_${toolName}`);
}

/**
 * The schema as the model gets it, or why it cannot be used: it must be a JSON Schema of an object
 * that compiles. `$schema` is left out, since providers and the argument checker read one dialect.
 */
function checkedInputSchema(schema: unknown): { parameters: Record<string, unknown> } | { problem: string } {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { problem: 'its input schema is not a JSON object' };
  const { $schema: _dialect, ...parameters } = schema as Record<string, unknown>;
  if (parameters.type !== 'object') return { problem: 'its input schema does not describe an object ("type": "object")' };
  try {
    schemaChecker.compile(parameters);
  } catch (error) {
    return {
      problem: `its input schema is not a valid JSON Schema (${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'})`,
    };
  }
  return { parameters };
}

async function describeChosenTools(
  config: { server_id: number; tools: readonly string[] },
  context: ToolContext,
): Promise<FunctionDescription[]> {
  const server = await context.mcpServers.tools(config.server_id, context.signal);
  const listed = new Map(server.tools.map((tool) => [tool.name, tool]));
  return config.tools.map((toolName) => {
    const name = functionNameOf(config.server_id, toolName);
    const tool = listed.get(toolName);
    if (tool === undefined) return { name, description: '', unavailable: `the MCP server "${server.name}" does not list this tool now` };
    const schema = checkedInputSchema(tool.inputSchema);
    if ('problem' in schema) return { name, description: '', unavailable: schema.problem };
    const description = tool.description.trim() === '' ? `The tool "${toolName}" of the MCP server "${server.name}".` : tool.description;
    return { name, description: description.slice(0, DESCRIPTION_CHARACTERS_MAXIMUM), parameters: schema.parameters, variant: toolName };
  });
}

export default defineTool({
  name: 'mcp',
  displayName: 'MCP server tools',
  description: "Lets the model use tools of one of the organization's MCP servers, chosen by name.",
  category: 'integrations',
  version: '1.0',
  configSchema,
  status: (config) => `calling a tool of MCP server ${config.server_id}`,
  traceInput: (config) => ({ server_id: config.server_id, tools: config.tools }),
  function: {
    describe: (config) => ({
      name: functionNameOf(config.server_id, config.tools[0] ?? 'tool'),
      description: `Tools of MCP server ${config.server_id}.`,
    }),
    describeAll: describeChosenTools,
    functionName: (config) => functionNameOf(config.server_id, config.tools[0] ?? 'tool'),
    // Each offered tool carries the schema its server lists; this one is never offered alone.
    parameters: { type: 'object' } as const,
    async call(argumentsFromModel, context, config) {
      const toolName = context.variant;
      if (toolName === undefined) throw new AppError('invalid_body', 'mcp: no tool was named.');
      const answer = await context.mcpServers.call(config.server_id, toolName, argumentsFromModel, context.signal);
      if (answer.isError)
        throw new AppError(
          'upstream_error',
          `the MCP tool "${toolName}" reported an error: ${answer.text.slice(0, ERROR_TEXT_CHARACTERS_MAXIMUM)}`,
        );
      return { content: answer.text };
    },
  },
});
