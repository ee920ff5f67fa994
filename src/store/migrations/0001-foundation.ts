/**
 * Migration 0001: organizations, users and their roles, sessions, API keys, assistants (with
 * LAMB's columns), assistant shares and the audit log.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

async function createOrganizations(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('organizations'), dialect)
    .addColumn('slug', 'text', (column) => column.notNull().unique())
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('is_system', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('status', 'text', (column) => column.notNull().defaultTo('active'))
    .addColumn('config', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
}

async function createUsers(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('users'), dialect)
    .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('email', 'text', (column) => column.notNull().unique())
    .addColumn('name', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('password_hash', 'text')
    // Email and name lower-cased by the application, for searches that fold case beyond ASCII.
    .addColumn('search_text', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('is_system_admin', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('disabled', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('users_organization_index').on('users').column('organization_id').execute();

  await withIdColumn(db.schema.createTable('organization_roles'), dialect)
    .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (column) => column.notNull().check(sql`role in ('admin', 'creator', 'learner')`))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('organization_roles_member_unique', ['organization_id', 'user_id'])
    .execute();
}

async function createCredentials(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('sessions'), dialect)
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'text', (column) => column.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_index').on('sessions').column('user_id').execute();

  await withIdColumn(db.schema.createTable('api_keys'), dialect)
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('key_prefix', 'text', (column) => column.notNull())
    .addColumn('key_hash', 'text', (column) => column.notNull().unique())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_user_index').on('api_keys').column('user_id').execute();
}

async function createAssistants(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('assistants'), dialect)
    .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('description', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('system_prompt', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('prompt_template', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('metadata', 'text', (column) => column.notNull().defaultTo('{}'))
    // Derived from metadata at every write, so lists can filter by type without parsing JSON.
    .addColumn('assistant_type', 'text', (column) => column.notNull().defaultTo('classic'))
    .addColumn('rag_collections', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('rag_top_k', 'integer', (column) => column.notNull().defaultTo(3))
    // Name and description lower-cased by the application, for searches that fold case beyond ASCII.
    .addColumn('search_text', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('published', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('published_at', 'text')
    .addColumn('deleted_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('assistants_organization_index').on('assistants').column('organization_id').execute();
  await db.schema.createIndex('assistants_owner_index').on('assistants').column('owner_id').execute();

  await withIdColumn(db.schema.createTable('assistant_shares'), dialect)
    .addColumn('assistant_id', 'integer', (column) => column.notNull().references('assistants.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('shared_by_user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('assistant_shares_unique', ['assistant_id', 'user_id'])
    .execute();
  await db.schema.createIndex('assistant_shares_user_index').on('assistant_shares').column('user_id').execute();
}

async function createAuditLog(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('audit_log'), dialect)
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('actor_user_id', 'integer')
    .addColumn('organization_id', 'integer')
    .addColumn('action', 'text', (column) => column.notNull())
    .addColumn('target_type', 'text', (column) => column.notNull())
    .addColumn('target_id', 'text')
    .addColumn('details', 'text', (column) => column.notNull().defaultTo('{}'))
    .addColumn('request_id', 'text')
    .execute();
  await db.schema.createIndex('audit_log_created_index').on('audit_log').column('created_at').execute();
}

export function foundationMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await createOrganizations(db, dialect);
      await createUsers(db, dialect);
      await createCredentials(db, dialect);
      await createAssistants(db, dialect);
      await createAuditLog(db, dialect);
    },
  };
}
