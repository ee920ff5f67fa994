/** The MCP servers organizations registered (docs/mcp-servers-as-tools.md); header values arrive here already sealed. */
import type { Kysely } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import { nowTimestamp, type Database, type McpServerRow } from './schema.js';

/** One header as stored: its name, and its value sealed with the secret box. */
export interface StoredMcpHeader {
  name: string;
  value_encrypted: string;
}

export interface McpServerFields {
  name: string;
  url: string;
  headers: StoredMcpHeader[];
}

export async function insertMcpServer(
  db: Kysely<Database>,
  server: McpServerFields & { organizationId: number; createdBy: number },
): Promise<number> {
  const now = nowTimestamp();
  const { id } = await db
    .insertInto('mcp_servers')
    .values({
      organization_id: server.organizationId,
      name: server.name,
      url: server.url,
      headers: JSON.stringify(server.headers),
      created_by: server.createdBy,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** A page of an organization's servers, oldest first (by id alone, so pages never overlap), with the count of all of them. */
export async function listMcpServers(
  db: Kysely<Database>,
  organizationId: number,
  page: PageBounds,
): Promise<{ items: McpServerRow[]; total: number }> {
  const all = db.selectFrom('mcp_servers').where('organization_id', '=', organizationId);
  const items = await all.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
  const { total } = await all.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

export async function findMcpServer(db: Kysely<Database>, id: number): Promise<McpServerRow | undefined> {
  return db.selectFrom('mcp_servers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateMcpServer(db: Kysely<Database>, id: number, fields: Partial<McpServerFields>): Promise<void> {
  await db
    .updateTable('mcp_servers')
    .set({
      ...(fields.name !== undefined && { name: fields.name }),
      ...(fields.url !== undefined && { url: fields.url }),
      ...(fields.headers !== undefined && { headers: JSON.stringify(fields.headers) }),
      updated_at: nowTimestamp(),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteMcpServer(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('mcp_servers').where('id', '=', id).execute();
}

/** The stored headers of a row, tolerant of a value that is not the JSON it should be (read as none). */
export function storedHeadersOf(row: McpServerRow): StoredMcpHeader[] {
  const parsed = JSON.parse(row.headers) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (entry): entry is StoredMcpHeader =>
      entry !== null &&
      typeof entry === 'object' &&
      typeof (entry as StoredMcpHeader).name === 'string' &&
      typeof (entry as StoredMcpHeader).value_encrypted === 'string',
  );
}
