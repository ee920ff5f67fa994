/**
 * Migration 0089: `mcp_sessions`, the optional sessions of the MCP server at `/mcp` (docs/mcp.md).
 * A session lives in the store, never in one process's memory, so any process answers any of its
 * requests. Only the SHA-256 of its id is kept; the row names the credential (a login session or an
 * API key) that opened it, and only that credential may use it. `expires_at` moves forward with
 * each use (MCP_SESSION_IDLE_MS).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function mcpSessionsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('mcp_sessions'), dialect)
        .addColumn('id_hash', 'text', (column) => column.notNull().unique())
        .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
        .addColumn('credential', 'text', (column) => column.notNull())
        .addColumn('credential_id', 'integer', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('last_seen_at', 'text', (column) => column.notNull())
        .addColumn('expires_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('mcp_sessions_credential_index')
        .on('mcp_sessions')
        .columns(['credential', 'credential_id', 'last_seen_at'])
        .execute();
      await db.schema.createIndex('mcp_sessions_expires_index').on('mcp_sessions').column('expires_at').execute();
    },
  };
}
