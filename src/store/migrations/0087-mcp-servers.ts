/**
 * Migration 0087: the MCP servers an organization's admins register so that assistants may use
 * their tools (docs/mcp-servers-as-tools.md). A server has a name, a Streamable HTTP URL and
 * headers; `headers` is a JSON array of `{name, value_encrypted}`, each value sealed with the
 * secret box, since header values are usually credentials.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function mcpServersMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('mcp_servers'), dialect)
        .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('url', 'text', (column) => column.notNull())
        .addColumn('headers', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('created_by', 'integer', (column) => column.references('users.id').onDelete('set null'))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('mcp_servers_organization_index').on('mcp_servers').column('organization_id').execute();
    },
  };
}
