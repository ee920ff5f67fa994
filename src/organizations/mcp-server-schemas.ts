/**
 * How the API shows an organization's MCP servers (docs/mcp-servers-as-tools.md), as JSON
 * Schemas: the server (its headers by name only, never a value), the bodies that register and
 * change one, and the tools a server lists. The routes validate and serialize with them, the
 * OpenAPI document and the web app's generated client read them, and the service takes its types
 * from them, so each shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { idSchema, timestampSchema } from '../validation/shape-fragments.js';

/** An HTTP header name (RFC 9110 token), bounded. */
const headerNameSchema = { type: 'string', minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" } as const;

export const mcpServerViewSchema = {
  type: 'object',
  description:
    "An organization's MCP server. Its URL and header names are shown to the organization's admins only; header values never are.",
  properties: {
    id: { type: 'integer' },
    organization_id: { type: 'integer' },
    name: { type: 'string' },
    url: { type: 'string', description: "admins only: the server's Streamable HTTP URL" },
    headers: {
      type: 'array',
      description: 'admins only: the headers sent to the server, by name; their values are never shown',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, has_value: { type: 'boolean' } },
        required: ['name', 'has_value'],
        additionalProperties: false,
      },
    },
    created_at: timestampSchema,
    updated_at: timestampSchema,
  },
  required: ['id', 'organization_id', 'name', 'created_at', 'updated_at'],
  additionalProperties: false,
} as const;

export type McpServerView = FromSchema<typeof mcpServerViewSchema>;

const headerInputSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: headerNameSchema,
    value: {
      type: 'string',
      maxLength: 4_000,
      // No line breaks or NUL: a value can never add a header of its own.
      pattern: '^[^\\r\\n\\u0000]*$',
      description:
        'The value, stored encrypted and never shown again; may use {{USER_ID}} and {{USER_EMAIL}} (the person chatting). Left out when changing a server: the stored value of the header of the same name is kept.',
    },
  },
} as const;

const serverFields = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  url: { type: 'string', minLength: 1, maxLength: 2_000, description: 'the Streamable HTTP URL, e.g. https://tools.example.edu/mcp' },
  headers: { type: 'array', maxItems: 20, items: headerInputSchema },
} as const;

export const newMcpServerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'url'],
  properties: { organization_id: { ...idSchema, description: "default: the caller's organization" }, ...serverFields },
} as const;

export type NewMcpServer = FromSchema<typeof newMcpServerSchema>;

export const mcpServerPatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: serverFields,
} as const;

export type McpServerPatch = FromSchema<typeof mcpServerPatchSchema>;

export const mcpServerToolsSchema = {
  type: 'object',
  description: 'The tools an MCP server lists, as the studio offers them; `error` says why the list is empty when the server failed',
  properties: {
    server_id: { type: 'integer' },
    name: { type: 'string' },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          input_schema: { type: 'object', additionalProperties: true },
        },
        required: ['name', 'description', 'input_schema'],
        additionalProperties: false,
      },
    },
    error: { type: 'string' },
  },
  required: ['server_id', 'name', 'tools'],
  additionalProperties: false,
} as const;

export type McpServerTools = FromSchema<typeof mcpServerToolsSchema>;
