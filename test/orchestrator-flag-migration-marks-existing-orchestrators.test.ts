/**
 * Migration 0013 on both dialects, over a store migrated to 0012 holding assistants written before
 * the flag existed: exactly those with an enabled assistant tool become orchestrators (a turned-off
 * assistant tool, other tools, classic metadata and unreadable metadata do not), and every other
 * column is kept as it was.
 */
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { insertOrganizationWithOwner, storeMigratedTo, type StoreBeforeAMigration } from './support/store-before-a-migration.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const BEFORE = '0012-ingestion-attempts-since-queued';

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
  let store: StoreBeforeAMigration | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('marks exactly the assistants with an enabled assistant tool as orchestrators', async () => {
    store = await storeMigratedTo(dialect, BEFORE);
    const { db } = store;
    const { organizationId, ownerId } = await insertOrganizationWithOwner(db, 'a', 'creator');
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

    await store.migrateToLatest();

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
