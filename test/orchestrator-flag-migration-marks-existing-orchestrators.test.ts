/**
 * Migration 0013 on both dialects, over a store migrated to 0012 holding assistants written before
 * the flag existed: exactly those with an enabled assistant tool become orchestrators (a turned-off
 * assistant tool, other tools, classic metadata and unreadable metadata do not), and every other
 * column is kept as it was.
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

const BEFORE = '0012-ingestion-attempts-since-queued';

function openRaw(database: TestDatabase, dialect: 'sqlite' | 'postgres'): Kysely<Database> {
  if (dialect === 'sqlite') {
    const connection = new SqliteDatabase(path.join(database.dataDirectory, SQLITE_FILE_NAME));
    connection.pragma('foreign_keys = ON');
    return new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  }
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.databaseUrl, max: 2 }) }) });
}

const tools = (...entries: Array<{ type: string; enabled: boolean }>) =>
  JSON.stringify({ assistant_type: 'multi_tool', tools: entries.map((entry) => ({ ...entry, config: { assistant_id: 1 } })) });

const METADATA_BY_NAME: Record<string, string> = {
  orchestrator: tools({ type: 'simple_rag', enabled: true }, { type: 'assistant', enabled: true }),
  'assistant tool turned off': tools({ type: 'assistant', enabled: false }),
  'other tools only': tools({ type: 'simple_rag', enabled: true }),
  classic: JSON.stringify({ rag_processor: 'simple_rag' }),
  unreadable: '{not json',
};

describe.each(TEST_DIALECTS)('migration 0013 on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let db: Kysely<Database> | undefined;

  afterEach(async () => {
    await db?.destroy();
    await database?.drop();
    db = undefined;
    database = undefined;
  });

  it('marks exactly the assistants with an enabled assistant tool as orchestrators', async () => {
    database = await createTestDatabase(dialect);
    db = openRaw(database, dialect);
    const migrator = new Migrator({ db, provider: { getMigrations: async () => allMigrations(dialect) } });
    expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
    const organizationId = await insertOrganization(db, 'a', 'A');
    const ownerId = await insertUser(db, {
      organizationId,
      email: 'a@merino.test',
      name: 'A',
      passwordHash: null,
      role: 'creator',
      isSystemAdmin: false,
    });
    const untyped = db as unknown as Kysely<{ assistants: Record<string, unknown> }>;
    await untyped
      .insertInto('assistants')
      .values(
        Object.entries(METADATA_BY_NAME).map(([name, metadata]) => ({
          organization_id: organizationId,
          owner_id: ownerId,
          name,
          metadata,
          assistant_type: name === 'classic' ? 'classic' : 'multi_tool',
          created_at: '2025-01-01T00:00:00.000Z',
          updated_at: '2025-01-02T00:00:00.000Z',
        })),
      )
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();

    const rows = await db.selectFrom('assistants').select(['name', 'metadata', 'orchestrator', 'updated_at']).orderBy('id').execute();
    expect(rows.map((row) => [row.name, row.orchestrator])).toEqual([
      ['orchestrator', 1],
      ['assistant tool turned off', 0],
      ['other tools only', 0],
      ['classic', 0],
      ['unreadable', 0],
    ]);
    expect(rows.map((row) => row.metadata)).toEqual(Object.values(METADATA_BY_NAME));
    expect(new Set(rows.map((row) => row.updated_at))).toEqual(new Set(['2025-01-02T00:00:00.000Z']));
  });
});
