/**
 * Migration 0030: LTI. Numbered from 0030 so that migrations added on other branches meanwhile
 * (0014 onwards) sort before it and never clash with it.
 *
 * - lti_consumers: LTI 1.1 consumers of an organization (key, secret encrypted at rest, the
 *   origins allowed to frame Merino for its launches).
 * - lti_platforms: LTI 1.3 platform registrations (issuer, client id, deployments, endpoints, JWKS
 *   URL or a public key).
 * - lti_used_nonces: every nonce seen (1.1 oauth_nonce, 1.3 id_token nonce), single use through
 *   the primary key, so a nonce spent on one process is refused on every other.
 * - lti_login_states: OIDC `state` between login initiation and launch, with the nonce it expects.
 * - lti_users: which Merino user an LTI user of a consumer or platform is.
 * - lti_links: resource links ("activities") and the assistant each is bound to.
 * - lti_launches: each launch (who, which link, which session, the return URL), for the teacher's
 *   dashboard and for `GET /api/me` of an LTI session.
 * - lti_tool_keys: the tool's own RSA key pair for LTI 1.3, generated once per installation.
 * - organizations.lti_instructors_create: whether LTI Instructors become creators.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

async function createRegistrations(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('lti_consumers'), dialect)
    .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('consumer_key', 'text', (column) => column.notNull().unique())
    .addColumn('secret_encrypted', 'text', (column) => column.notNull())
    .addColumn('frame_origins', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('created_by', 'integer')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('lti_consumers_organization_index').on('lti_consumers').column('organization_id').execute();

  await withIdColumn(db.schema.createTable('lti_platforms'), dialect)
    .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (column) => column.notNull())
    .addColumn('client_id', 'text', (column) => column.notNull())
    .addColumn('deployment_ids', 'text', (column) => column.notNull())
    .addColumn('auth_login_url', 'text', (column) => column.notNull())
    .addColumn('auth_token_url', 'text', (column) => column.notNull())
    .addColumn('jwks_url', 'text')
    .addColumn('public_key', 'text')
    .addColumn('frame_origins', 'text', (column) => column.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('lti_platforms_issuer_client_unique', ['issuer', 'client_id'])
    .execute();
}

async function createReplayGuards(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lti_used_nonces')
    .addColumn('scope', 'text', (column) => column.notNull())
    .addColumn('nonce', 'text', (column) => column.notNull())
    // Milliseconds since the epoch; bigint so PostgreSQL holds it.
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('lti_used_nonces_primary_key', ['scope', 'nonce'])
    .execute();
  await db.schema.createIndex('lti_used_nonces_expiry_index').on('lti_used_nonces').column('expires_at').execute();

  await db.schema
    .createTable('lti_login_states')
    .addColumn('state', 'text', (column) => column.primaryKey())
    .addColumn('platform_id', 'integer', (column) => column.notNull().references('lti_platforms.id').onDelete('cascade'))
    .addColumn('nonce', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('lti_login_states_expiry_index').on('lti_login_states').column('expires_at').execute();
}

async function createLaunchRecords(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withIdColumn(db.schema.createTable('lti_users'), dialect)
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('lti_user_id', 'text', (column) => column.notNull())
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('lti_users_source_user_unique', ['source', 'lti_user_id'])
    .execute();

  await withIdColumn(db.schema.createTable('lti_links'), dialect)
    .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('source', 'text', (column) => column.notNull())
    .addColumn('resource_link_id', 'text', (column) => column.notNull())
    .addColumn('title', 'text', (column) => column.notNull().defaultTo(''))
    .addColumn('assistant_id', 'integer', (column) => column.references('assistants.id').onDelete('set null'))
    .addColumn('bound_by', 'integer')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('updated_at', 'text', (column) => column.notNull())
    .addUniqueConstraint('lti_links_source_link_unique', ['source', 'resource_link_id'])
    .execute();

  await withIdColumn(db.schema.createTable('lti_launches'), dialect)
    .addColumn('link_id', 'integer', (column) => column.notNull().references('lti_links.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_id', 'integer', (column) => column.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('instructor', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('return_url', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('lti_launches_link_index').on('lti_launches').column('link_id').execute();
  await db.schema.createIndex('lti_launches_session_index').on('lti_launches').column('session_id').execute();
}

export function ltiMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await createRegistrations(db, dialect);
      await createReplayGuards(db);
      await createLaunchRecords(db, dialect);
      await db.schema
        .createTable('lti_tool_keys')
        .addColumn('kid', 'text', (column) => column.primaryKey())
        .addColumn('public_jwk', 'text', (column) => column.notNull())
        .addColumn('private_key_encrypted', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .alterTable('organizations')
        .addColumn('lti_instructors_create', 'integer', (column) => column.notNull().defaultTo(sql`0`))
        .execute();
    },
  };
}
