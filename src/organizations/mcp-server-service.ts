/**
 * An organization's MCP servers (docs/mcp-servers-as-tools.md): its admins register, change and
 * remove them; its creators see them by name with their tools (the studio); assistants reach them
 * through the McpServers port, bound to the owner's organization and the person chatting. Header
 * values are sealed with the secret box and never leave the server except to the MCP server
 * itself; URLs are checked under the outbound rules when saved and on every connection.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { auditEntryOf, type CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import {
  mayAdministerMcpServers,
  requireMcpServerAdministration,
  requireMcpServerForAssistant,
  requireMcpServerUse,
} from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { OutboundGuard } from '../outbound/outbound-guard.js';
import type { McpServers, McpToolListing, Requester } from '../pipeline/plugin-contract/ports.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { HotReadCache } from '../store/hot-read-cache.js';
import {
  deleteMcpServer,
  findMcpServer,
  insertMcpServer,
  listMcpServers,
  storedHeadersOf,
  updateMcpServer,
  type StoredMcpHeader,
} from '../store/mcp-servers-repository.js';
import type { Database, McpServerRow } from '../store/schema.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import { checkHeaderTemplate, fillHeaderTemplate } from './mcp-header-templates.js';
import { callMcpTool, listMcpTools } from './mcp-server-connection.js';
import type { McpServerPatch, McpServerTools, McpServerView, NewMcpServer } from './mcp-server-schemas.js';

export interface McpServerServiceOptions {
  db: Kysely<Database>;
  secrets: SecretBox;
  outbound: OutboundGuard;
  /** MCP_TOOL_LIST_TIMEOUT_MS, MCP_TOOL_LIST_CACHE_MS, MCP_TOOLS_PER_SERVER_MAX. */
  listTimeoutMilliseconds: number;
  listCacheMilliseconds: number;
  toolsPerServerMaximum: number;
  /** The longest a tool call may take: the tool loop's own bound usually ends it first. */
  callTimeoutMilliseconds: number;
  entriesMaximum: number;
}

/** The field a guarded fetch names when it refuses a server's address. */
const URL_FIELD = 'url';
/** Headers the transport sets itself: a server's configuration may not replace them. */
const RESERVED_HEADERS = new Set([
  'accept',
  'connection',
  'content-length',
  'content-type',
  'host',
  'mcp-protocol-version',
  'mcp-session-id',
  'transfer-encoding',
]);

type HeaderInput = NonNullable<NewMcpServer['headers']>[number];

export class McpServerService {
  private readonly listings: HotReadCache<string, Promise<McpToolListing[]>>;

  constructor(private readonly options: McpServerServiceOptions) {
    this.listings = new HotReadCache({ entriesMaximum: options.entriesMaximum, lifetimeMilliseconds: options.listCacheMilliseconds });
  }

  async create(context: CallContext, input: NewMcpServer): Promise<McpServerView> {
    const organizationId = input.organization_id ?? context.identity.organizationId;
    requireMcpServerAdministration(context.identity, organizationId, 'Organization');
    const url = this.checkedUrl(input.url);
    const headers = this.sealedHeaders(input.headers ?? [], []);
    const id = await this.options.db.transaction().execute(async (transaction) => {
      const serverId = await insertMcpServer(transaction, {
        organizationId,
        name: input.name,
        url,
        headers,
        createdBy: context.identity.userId,
      });
      await appendAuditEntry(transaction, auditEntryOf(context, { type: 'mcp_server', id: serverId, organizationId }, 'mcp_server.create'));
      return serverId;
    });
    return this.view(context.identity, (await findMcpServer(this.options.db, id))!);
  }

  async list(context: CallContext, query: PageBounds & { organization_id?: number }): Promise<{ items: McpServerView[]; total: number }> {
    const organizationId = query.organization_id ?? context.identity.organizationId;
    requireMcpServerUse(context.identity, organizationId, 'Organization');
    const rows = await listMcpServers(this.options.db, organizationId, query);
    return { items: rows.items.map((row) => this.view(context.identity, row)), total: rows.total };
  }

  async update(context: CallContext, id: number, patch: McpServerPatch): Promise<McpServerView> {
    const row = await this.administered(context, id);
    const fields = {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.url !== undefined && { url: this.checkedUrl(patch.url) }),
      ...(patch.headers !== undefined && { headers: this.sealedHeaders(patch.headers, storedHeadersOf(row)) }),
    };
    await this.options.db.transaction().execute(async (transaction) => {
      await updateMcpServer(transaction, id, fields);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'mcp_server', id, organizationId: row.organization_id }, 'mcp_server.update', {
          fields: Object.keys(patch),
        }),
      );
    });
    return this.view(context.identity, (await findMcpServer(this.options.db, id))!);
  }

  async remove(context: CallContext, id: number): Promise<void> {
    const row = await this.administered(context, id);
    await this.options.db.transaction().execute(async (transaction) => {
      await deleteMcpServer(transaction, id);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'mcp_server', id, organizationId: row.organization_id }, 'mcp_server.delete'),
      );
    });
  }

  /** The server's tools for the studio, listed as the caller; a failing server gives an empty list and the reason. */
  async tools(context: CallContext, id: number): Promise<McpServerTools> {
    const server = await findMcpServer(this.options.db, id);
    if (!server) throw new AppError('not_found', 'MCP server not found.');
    requireMcpServerUse(context.identity, server.organization_id, 'MCP server');
    const requester = { userId: context.identity.userId, email: context.identity.email };
    try {
      const tools = await this.listingOf(server, requester);
      return {
        server_id: server.id,
        name: server.name,
        tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })),
      };
    } catch (error) {
      const reason = error instanceof AppError ? error.message : 'The server could not be listed.';
      return { server_id: server.id, name: server.name, tools: [], error: reason };
    }
  }

  /** The port an assistant's MCP tools use: its owner's organization's servers, headers filled for the person chatting. */
  portFor(owner: Identity, requester: Requester): McpServers {
    const serverFor = async (serverId: number): Promise<McpServerRow> => {
      const row = await findMcpServer(this.options.db, serverId);
      requireMcpServerForAssistant(owner, row?.organization_id);
      return row!;
    };
    return {
      tools: async (serverId) => {
        const row = await serverFor(serverId);
        return { name: row.name, tools: await this.listingOf(row, requester) };
      },
      call: async (serverId, toolName, argumentsObject, signal) => {
        const row = await serverFor(serverId);
        return callMcpTool(this.target(row, requester, signal, this.options.callTimeoutMilliseconds), toolName, argumentsObject);
      },
    };
  }

  private async administered(context: CallContext, id: number): Promise<McpServerRow> {
    const row = await findMcpServer(this.options.db, id);
    if (!row) throw new AppError('not_found', 'MCP server not found.');
    requireMcpServerAdministration(context.identity, row.organization_id, 'MCP server');
    return row;
  }

  private view(identity: Identity, row: McpServerRow): McpServerView {
    const common = {
      id: row.id,
      organization_id: row.organization_id,
      name: row.name,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
    if (!mayAdministerMcpServers(identity, row.organization_id)) return common;
    return {
      ...common,
      url: row.url,
      headers: storedHeadersOf(row).map((header) => ({ name: header.name, has_value: header.value_encrypted !== '' })),
    };
  }

  private checkedUrl(url: string): string {
    this.options.outbound.checkConfiguredUrl(url, URL_FIELD);
    return url;
  }

  /** The headers to store: each value sealed; a header given without a value keeps the stored one of that name. */
  private sealedHeaders(headers: readonly HeaderInput[], stored: readonly StoredMcpHeader[]): StoredMcpHeader[] {
    const seen = new Set<string>();
    return headers.map((header, index) => {
      const field = `headers[${index}]`;
      const key = header.name.toLowerCase();
      if (RESERVED_HEADERS.has(key))
        throw new AppError('invalid_body', `${field}.name: ${header.name} is set by Merino itself and cannot be configured.`, {
          param: `${field}.name`,
        });
      if (seen.has(key)) throw new AppError('invalid_body', `${field}.name: ${header.name} is given twice.`, { param: `${field}.name` });
      seen.add(key);
      if (header.value === undefined) {
        const kept = stored.find((entry) => entry.name.toLowerCase() === key);
        return { name: header.name, value_encrypted: kept?.value_encrypted ?? '' };
      }
      checkHeaderTemplate(header.value, `${field}.value`);
      return { name: header.name, value_encrypted: header.value === '' ? '' : this.options.secrets.encrypt(header.value) };
    });
  }

  private filledHeaders(row: McpServerRow, requester: Requester): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const header of storedHeadersOf(row))
      if (header.value_encrypted !== '')
        headers[header.name] = fillHeaderTemplate(this.options.secrets.decrypt(header.value_encrypted), requester);
    return headers;
  }

  private target(row: McpServerRow, requester: Requester, signal: AbortSignal, timeoutMilliseconds: number) {
    return {
      serverName: row.name,
      url: row.url,
      headers: this.filledHeaders(row, requester),
      fetch: this.options.outbound.fetchFor(URL_FIELD),
      timeoutMilliseconds,
      signal,
    };
  }

  /**
   * The server's tools, cached per server version and per filled headers (a header naming the
   * person may change what a server lists); concurrent readers share one listing, and a failure
   * is not kept.
   */
  private listingOf(row: McpServerRow, requester: Requester): Promise<McpToolListing[]> {
    // Shared by concurrent readers, so no one caller's signal ends it: the list timeout alone bounds it.
    const target = this.target(row, requester, new AbortController().signal, this.options.listTimeoutMilliseconds);
    const headersDigest = createHash('sha256').update(JSON.stringify(target.headers)).digest('hex');
    const key = `${row.id}\u0000${row.updated_at}\u0000${headersDigest}`;
    const cached = this.listings.get(key);
    if (cached !== undefined) return cached;
    const listing = listMcpTools(target, this.options.toolsPerServerMaximum);
    this.listings.set(key, listing);
    listing.catch(() => this.listings.forget(key));
    return listing;
  }
}
