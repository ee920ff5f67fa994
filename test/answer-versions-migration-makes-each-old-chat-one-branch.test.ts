/**
 * Migration 0071 on both dialects, over a store migrated to 0061 holding chats written before
 * versions existed: each chat becomes one branch — every message follows the one before it, the
 * first question follows none, the newest message is the branch shown — and a chat without
 * messages shows none.
 */
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { insertOrganizationWithOwner, storeMigratedTo, type StoreBeforeAMigration } from './support/store-before-a-migration.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const BEFORE = '0061-document-upload-lease';
const AT = '2025-01-01T00:00:00.000Z';

describe.each(TEST_DIALECTS)('migration 0071 on %s', (dialect) => {
  let store: StoreBeforeAMigration | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('makes each existing chat one branch ending at its newest message', async () => {
    store = await storeMigratedTo(dialect, BEFORE);
    const { db } = store;
    const { organizationId, ownerId } = await insertOrganizationWithOwner(db, 'a', 'learner');
    const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const assistant = await untyped
      .insertInto('assistants')
      .values({ organization_id: organizationId, owner_id: ownerId, name: 'Tutor', metadata: '{}', created_at: AT, updated_at: AT })
      .returning('id')
      .executeTakeFirstOrThrow();
    const chatIds: number[] = [];
    for (const title of ['with messages', 'empty']) {
      const chat = await untyped
        .insertInto('chats')
        .values({
          organization_id: organizationId,
          owner_id: ownerId,
          assistant_id: assistant.id,
          title,
          search_text: title,
          created_at: AT,
          updated_at: AT,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      chatIds.push(chat.id as number);
    }
    // The first chat holds a question, an answer, a question and an answer; the second none.
    for (const [index, role] of ['user', 'assistant', 'user', 'assistant'].entries())
      await untyped
        .insertInto('chat_messages')
        .values({ chat_id: chatIds[0], role, content: `message ${index}`, sources: '[]', steps: '[]', created_at: AT })
        .execute();

    await store.migrateToLatest();
    const messages = await db.selectFrom('chat_messages').select(['id', 'parent_id']).orderBy('id').execute();
    expect(messages.map((message) => message.parent_id)).toEqual([null, messages[0]!.id, messages[1]!.id, messages[2]!.id]);
    const chats = await db.selectFrom('chats').select(['id', 'active_leaf_id']).orderBy('id').execute();
    expect(chats.map((chat) => chat.active_leaf_id)).toEqual([messages[3]!.id, null]);
  });
});
