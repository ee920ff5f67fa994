/**
 * Migration 0010 on both dialects, over a store migrated to 0009 and filled with rubrics the old
 * way: every rubric keeps its row id, public id, organization, data and deletion, and afterwards
 * an id is unique per organization (a second organization may reuse it, the same one may not).
 * SQLite rebuilds the table for this, so losing a row or a column there would show here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { insertOrganizationWithOwner, storeMigratedTo, type StoreBeforeAMigration } from './support/store-before-a-migration.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const BEFORE = '0009-api-key-trust-and-expiry';

describe.each(TEST_DIALECTS)('migration 0010 on %s', (dialect) => {
  let store: StoreBeforeAMigration | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('keeps every rubric as it was and makes rubric ids unique per organization', async () => {
    store = await storeMigratedTo(dialect, BEFORE);
    const { db } = store;

    const { organizationId: organizationA, ownerId: ownerA } = await insertOrganizationWithOwner(db, 'a', 'creator');
    const { organizationId: organizationB, ownerId: ownerB } = await insertOrganizationWithOwner(db, 'b', 'creator');
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

    await store.migrateToLatest();
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
