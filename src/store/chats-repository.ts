/**
 * Chats and their messages (migration 0014). Chats are deleted for good (their messages go with
 * them through the foreign key); the service decides who may see which, and the list scopes come
 * from the permission module.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { ChatListScope } from './list-scopes.js';
import { containsText, searchText } from './search-pattern.js';
import type { ChatMessagesTable, ChatsTable, Database } from './schema.js';

/** A chat row as the service reads it: without its search column, with its assistant's name. */
export type ChatRecord = Omit<Selectable<ChatsTable>, 'search_text'> & { assistant_name: string };

export type ChatMessageRow = Selectable<ChatMessagesTable>;
export type NewChatMessageRow = Insertable<ChatMessagesTable>;

export interface NewChat {
  organizationId: number;
  ownerId: number;
  assistantId: number;
  title: string;
  createdAt: string;
}

export interface ChatListQuery {
  limit: number;
  offset: number;
  assistantId: number | undefined;
  search: string | undefined;
  /** Only the chats of these people (an LTI activity's learners); all of the scope's when absent. */
  ownerIds?: readonly number[] | undefined;
}

function chatsWithAssistant(db: Kysely<Database>) {
  return db
    .selectFrom('chats')
    .innerJoin('assistants', 'assistants.id', 'chats.assistant_id')
    .select([
      'chats.id',
      'chats.organization_id',
      'chats.owner_id',
      'chats.assistant_id',
      'assistants.name as assistant_name',
      'chats.title',
      'chats.created_at',
      'chats.updated_at',
      'chats.active_leaf_id',
    ]);
}

export async function insertChat(db: Kysely<Database>, chat: NewChat): Promise<number> {
  const row = await db
    .insertInto('chats')
    .values({
      organization_id: chat.organizationId,
      owner_id: chat.ownerId,
      assistant_id: chat.assistantId,
      title: chat.title,
      search_text: searchText(chat.title),
      created_at: chat.createdAt,
      updated_at: chat.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findChat(db: Kysely<Database>, id: number): Promise<ChatRecord | undefined> {
  return chatsWithAssistant(db).where('chats.id', '=', id).executeTakeFirst();
}

function scoped(db: Kysely<Database>, scope: ChatListScope, query: ChatListQuery) {
  let chats = chatsWithAssistant(db);
  if (scope.kind === 'owner') chats = chats.where('chats.owner_id', '=', scope.userId);
  else
    chats = chats
      .where('chats.assistant_id', '=', scope.assistantId)
      .where('chats.organization_id', 'in', db.selectFrom('organizations').select('id').where('owners_can_read_chats', '=', 1));
  if (query.assistantId !== undefined) chats = chats.where('chats.assistant_id', '=', query.assistantId);
  if (query.search !== undefined && query.search !== '') chats = chats.where(containsText('chats.search_text', query.search));
  // An empty list matches nobody; `in ()` is not valid SQL, so an impossible id stands in.
  if (query.ownerIds !== undefined) chats = chats.where('chats.owner_id', 'in', query.ownerIds.length === 0 ? [-1] : [...query.ownerIds]);
  return chats;
}

/** The ids of the scope's chats, as a subquery (the ratings given in them, for one). */
export function scopedChatIds(db: Kysely<Database>, scope: ChatListScope) {
  return scoped(db, scope, { limit: 0, offset: 0, assistantId: undefined, search: undefined }).clearSelect().select('chats.id');
}

/** A page of chats, newest change first. */
export async function listChats(
  db: Kysely<Database>,
  scope: ChatListScope,
  query: ChatListQuery,
): Promise<{ items: ChatRecord[]; total: number }> {
  const items = await scoped(db, scope, query)
    .orderBy('chats.updated_at', 'desc')
    .orderBy('chats.id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  const counted = await scoped(db, scope, query)
    .clearSelect()
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return { items, total: Number(counted.count) };
}

/** A chat of the scope by id, or undefined when the scope does not include it. */
export async function findScopedChat(db: Kysely<Database>, scope: ChatListScope, id: number): Promise<ChatRecord | undefined> {
  return scoped(db, scope, { limit: 1, offset: 0, assistantId: undefined, search: undefined })
    .where('chats.id', '=', id)
    .executeTakeFirst();
}

export async function setChatTitle(db: Kysely<Database>, id: number, title: string, updatedAt: string): Promise<void> {
  await db
    .updateTable('chats')
    .set({ title, search_text: searchText(title), updated_at: updatedAt })
    .where('id', '=', id)
    .execute();
}

/** Names an untitled chat; a title the owner gave (or an earlier answer) stays. */
export async function nameUntitledChat(db: Kysely<Database>, id: number, title: string): Promise<void> {
  await db
    .updateTable('chats')
    .set({ title, search_text: searchText(title) })
    .where('id', '=', id)
    .where('title', '=', '')
    .execute();
}

export async function touchChat(db: Kysely<Database>, id: number, updatedAt: string): Promise<void> {
  await db.updateTable('chats').set({ updated_at: updatedAt }).where('id', '=', id).execute();
}

export async function deleteChat(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('chats').where('id', '=', id).execute();
}

export async function deleteChatsOfOwner(db: Kysely<Database>, ownerId: number): Promise<number> {
  const result = await db.deleteFrom('chats').where('owner_id', '=', ownerId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Messages of the chats, oldest first. */
export async function listMessages(db: Kysely<Database>, chatIds: readonly number[]): Promise<ChatMessageRow[]> {
  if (chatIds.length === 0) return [];
  return db.selectFrom('chat_messages').selectAll().where('chat_id', 'in', chatIds).orderBy('id', 'asc').execute();
}

export async function countMessages(db: Kysely<Database>, chatId: number): Promise<number> {
  const row = await db
    .selectFrom('chat_messages')
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .where('chat_id', '=', chatId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertMessage(db: Kysely<Database>, row: NewChatMessageRow): Promise<number> {
  const inserted = await db.insertInto('chat_messages').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

/** Makes `leafId` the last message of the branch the chat shows (migration 0071). */
export async function setActiveLeaf(db: Kysely<Database>, chatId: number, leafId: number): Promise<void> {
  await db.updateTable('chats').set({ active_leaf_id: leafId }).where('id', '=', chatId).execute();
}

/**
 * Deletes the chats last changed before their organization's retention allows. Plain deletes by
 * condition: several processes running it at once delete each chat once, and a second run finds
 * nothing more to do.
 */
export async function purgeExpiredChats(db: Kysely<Database>, now: Date): Promise<number> {
  const organizations = await db
    .selectFrom('organizations')
    .select(['id', 'chat_retention_days'])
    .where('chat_retention_days', 'is not', null)
    .execute();
  let deleted = 0;
  for (const organization of organizations) {
    const days = organization.chat_retention_days;
    if (days === null) continue;
    const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
    const result = await db
      .deleteFrom('chats')
      .where('organization_id', '=', organization.id)
      .where('updated_at', '<', cutoff)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}
