/**
 * The save-time check of an assistant's MCP tool entries (`{type: "mcp", config: {server_id}}`):
 * each must name an MCP server of its owner's organization, as the tool will reach at chat time
 * (docs/mcp-servers-as-tools.md). Without it, a made-up id or another organization's server was
 * stored and only failed quietly in chats. The permission module decides; this module finds the
 * servers and words the refusal, the same for a missing server and another organization's, so
 * ids cannot be probed.
 */
import type { Kysely } from 'kysely';
import type { Identity } from '../auth/identity.js';
import { mayAssistantUseMcpServer } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { findMcpServer } from '../store/mcp-servers-repository.js';
import type { Database } from '../store/schema.js';
import type { FieldProblem } from '../validation/json-schema-problems.js';

const MCP_TOOL = 'mcp';

/** One MCP tool entry's server: where the metadata names it, and the id it names. */
interface McpServerReference {
  path: string;
  serverId: unknown;
}

/** Every MCP tool entry's server_id, enabled or not (a disabled tool is one toggle away from running). */
function mcpServerReferences(metadata: Pick<AssistantMetadata, 'tools'>): McpServerReference[] {
  return (metadata.tools ?? []).flatMap((tool, index) =>
    tool.type === MCP_TOOL ? [{ path: `metadata.tools[${index}].config.server_id`, serverId: tool.config.server_id }] : [],
  );
}

async function serverOrganizationOf(db: Kysely<Database>, serverId: unknown): Promise<number | undefined> {
  if (typeof serverId !== 'number' || !Number.isSafeInteger(serverId) || serverId < 1 || serverId > 2_147_483_647) return undefined;
  return (await findMcpServer(db, serverId))?.organization_id;
}

/**
 * Throws 400 `invalid_metadata` (param: the first refused `metadata.tools[i].config.server_id`,
 * details.errors: every one) unless every MCP tool entry names a server of `owner`'s organization.
 */
export async function requireOwnMcpServers(db: Kysely<Database>, metadata: AssistantMetadata, owner: Identity): Promise<void> {
  const problems: FieldProblem[] = [];
  for (const reference of mcpServerReferences(metadata)) {
    if (mayAssistantUseMcpServer(owner, await serverOrganizationOf(db, reference.serverId))) continue;
    problems.push({
      path: reference.path,
      message: `${reference.path} names MCP server ${String(reference.serverId)}, which is not one of the MCP servers of the organization of this assistant's owner (${owner.email}): choose one of their organization's servers (GET /api/mcp-servers) or remove the tool.`,
    });
  }
  const first = problems[0];
  if (first) throw new AppError('invalid_metadata', first.message, { param: first.path, details: { errors: problems } });
}
