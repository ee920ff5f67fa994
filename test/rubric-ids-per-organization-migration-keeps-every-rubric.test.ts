/**
 * Migration 0010 on both dialects, over a store migrated to 0009 and filled with rubrics the old
 * way: every rubric keeps its row id, public id, organization, data and deletion, and afterwards
 * an id is unique per organization (a second organization may reuse it, the same one may not).
 * SQLite rebuilds the table for this, so losing a row or a column there would show here.
 */
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { allMigrations } from '../src/store/migrations/index.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import type { Database } from '../src/store/schema.js';
import { SQLITE_FILE_NAME } from '../src/store/store.js';
import { insertUser } from '../src/store/users-repository.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';

const BEFORE = '0009-api-key-trust-and-expiry';

function openRaw(database: TestDatabase, dialect: 'sqlite' | 'postgres'): Kysely<Database> {
  if (dialect === 'sqlite') {
    const connection = new SqliteDatabase(path.join(database.dataDirectory, SQLITE_FILE_NAME));
    connection.pragma('foreign_keys = ON');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  }
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.databaseUrl, max: 2 }) }) });
}

describe.each(TEST_DIALECTS)('migration 0010 on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let db: Kysely<Database> | undefined;

  afterEach(async () => {
    await db?.destroy();
    await database?.drop();
    db = undefined;
    database = undefined;
  });

  it('keeps every rubric as it was and makes rubric ids unique per organization', async () => {
    database = await createTestDatabase(dialect);
    db = openRaw(database, dialect);
    const migrator = new Migrator({ db, provider: { getMigrations: async () => allMigrations(dialect) } });
    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();

    const organizationA = await insertOrganization(db, 'a', 'A');
    const organizationB = await insertOrganization(db, 'b', 'B');
    const ownerA = await insertUser(db, {
      organizationId: organizationA,
      email: 'a@merino.test',
      name: 'A',
      passwordHash: null,
      role: 'creator',
      isSystemAdmin: false,
    });
    const ownerB = await insertUser(db, {
      organizationId: organizationB,
      email: 'b@merino.test',
      name: 'B',
      passwordHash: null,
      role: 'creator',
      isSystemAdmin: false,
    });
    const row = (rubricId: string, ownerId: number, organizationId: number, deletedAt: string | null) => ({
      rubric_id: rubricId,
      owner_id: ownerId,
      organization_id: organizationId,
      title: `Title of ${rubricId}`,
      description: 'Kept as it was',
      visibility: 'organization' as const,
      rubric_data: JSON.stringify({ rubricId, criteria: [] }),
      search_text: `title of ${rubricId}`,
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-02T00:00:00.000Z',
      deleted_at: deletedAt,
    });
    await db
      .insertInto('rubrics')
      .values([
        row('essay-rubric-a', ownerA, organizationA, null),
        row('deleted-rubric-a', ownerA, organizationA, '2025-02-01T00:00:00.000Z'),
        row('essay-rubric-b', ownerB, organizationB, null),
      ])
      .execute();
    const before = await db.selectFrom('rubrics').selectAll().orderBy('id').execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const after = await db.selectFrom('rubrics').selectAll().orderBy('id').execute();
    expect(after).toEqual(before);

    // Another organization may now hold the same id; the same organization still may not, deleted or not.
    await db
      .insertInto('rubrics')
      .values(row('essay-rubric-a', ownerB, organizationB, null))
      .execute();
    await expect(
      db
        .insertInto('rubrics')
        .values(row('essay-rubric-a', ownerA, organizationA, null))
        .execute(),
    ).rejects.toThrow();
    await expect(
      db
        .insertInto('rubrics')
        .values(row('deleted-rubric-a', ownerA, organizationA, null))
        .execute(),
    ).rejects.toThrow();
    // New rows continue the row ids instead of reusing one.
    const newest = await db
      .selectFrom('rubrics')
      .select('id')
      .where('owner_id', '=', ownerB)
      .where('rubric_id', '=', 'essay-rubric-a')
      .executeTakeFirstOrThrow();
    expect(newest.id).toBeGreaterThan(Math.max(...before.map((rubric) => rubric.id)));
  });
});
