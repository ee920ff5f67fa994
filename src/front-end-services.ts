/**
 * The services that serve Merino to other front ends and agents, and reach an organization's own
 * agents' tools: Open WebUI (forwarded learners, signed source links) and MCP in both directions.
 */
import type { FrontEndPersonService } from './auth/front-end-person-service.js';
import type { SourceLinkService } from './knowledge/source-link-service.js';
import type { McpService } from './mcp/mcp-service.js';
import type { McpServerService } from './organizations/mcp-server-service.js';

export interface FrontEndServices {
  /** Whom a trusted front end's request runs as (docs/open-webui.md). */
  frontEndPeople: FrontEndPersonService;
  /** Signed links to cited passages, for a trusted front end's "Sources" block. */
  sourceLinks: SourceLinkService;
  /** Assistants as MCP tools and prompts, served at /mcp (docs/mcp.md). */
  mcp: McpService;
  /** An organization's MCP servers, used as tools (docs/mcp-servers-as-tools.md). */
  mcpServers: McpServerService;
}
