/**
 * A fresh store of either dialect migrated up to one named migration, opened without Merino's
 * store so a test can write rows the way that older schema held them, then migrate to the
 * latest and check what the newer migrations made of them.
 */
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { expect } from 'vitest';
import { allMigrations } from '../../src/store/migrations/index.js';
import { insertOrganization } from '../../src/store/organizations-repository.js';
import type { Database } from '../../src/store/schema.js';
import { SQLITE_FILE_NAME } from '../../src/store/store.js';
import { insertUser } from '../../src/store/users-repository.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './test-databases.js';

export interface StoreBeforeAMigration {
  db: Kysely<Database>;
  /** Runs every later migration, expecting none to fail. */
  migrateToLatest(): Promise<void>;
  close(): Promise<void>;
}

function openRaw(database: TestDatabase, dialect: Dialect): Kysely<Database> {
  if (dialect === 'sqlite') {
    const connection = new SqliteDatabase(path.join(database.dataDirectory, SQLITE_FILE_NAME));
    connection.pragma('foreign_keys = ON');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  }
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.databaseUrl, max: 2 }) }) });
}

/** A new store migrated up to and including `lastMigration` (for example '0061-document-upload-lease'). */
export async function storeMigratedTo(dialect: Dialect, lastMigration: string): Promise<StoreBeforeAMigration> {
  const database = await createTestDatabase(dialect);
  const db = openRaw(database, dialect);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => allMigrations(dialect) } });
  expect((await migrator.migrateTo(lastMigration)).error).toBeUndefined();
  return {
    db,
    async migrateToLatest() {
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
    },
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}

/** An organization named by `slug` and one account in it, written through the repositories of that day. */
export async function insertOrganizationWithOwner(
  db: Kysely<Database>,
  slug: string,
  role: 'learner' | 'creator',
): Promise<{ organizationId: number; ownerId: number }> {
  const organizationId = await insertOrganization(db, slug, slug.toUpperCase());
  const ownerId = await insertUser(db, {
    organizationId,
    email: `${slug}@merino.test`,
    name: slug.toUpperCase(),
    passwordHash: null,
    role,
    isSystemAdmin: false,
  });
  return { organizationId, ownerId };
}
