/**
 * Ratings of answers (migration 0071): one per answer, written by the chat's owner, replaced by a
 * later one. The service decides who may write and read them; reading across chats goes through
 * the same chat list scopes as the chats themselves.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { scopedChatIds } from './chats-repository.js';
import type { ChatListScope } from './list-scopes.js';
import type { AnswerFeedbackTable, Database } from './schema.js';

export type AnswerFeedbackRow = Selectable<AnswerFeedbackTable>;

/** A rating with the owner of the chat it was given in, for pseudonyms. */
export type ScopedFeedbackRow = AnswerFeedbackRow & { owner_id: number };

export interface NewFeedback {
  messageId: number;
  chatId: number;
  rating: 'up' | 'down';
  comment: string | null;
  now: string;
}

/** Keeps the rating; a second rating of the same answer replaces the first in one statement, so concurrent ones never collide. */
export async function upsertFeedback(db: Kysely<Database>, feedback: NewFeedback): Promise<AnswerFeedbackRow> {
  return db
    .insertInto('answer_feedback')
    .values({
      message_id: feedback.messageId,
      chat_id: feedback.chatId,
      rating: feedback.rating,
      comment: feedback.comment,
      created_at: feedback.now,
      updated_at: feedback.now,
    })
    .onConflict((conflict) =>
      conflict.column('message_id').doUpdateSet({ rating: feedback.rating, comment: feedback.comment, updated_at: feedback.now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The answer's rating as it stands, with the answer's row locked until the transaction ends (an
 * update that changes nothing takes the lock on both dialects), so two raters of one answer take
 * turns and the insights' counters follow each change exactly once.
 */
export async function lockedRating(db: Kysely<Database>, messageId: number): Promise<'up' | 'down' | undefined> {
  await db
    .updateTable('chat_messages')
    .set({ finish_reason: sql`finish_reason` })
    .where('id', '=', messageId)
    .execute();
  const row = await db.selectFrom('answer_feedback').select('rating').where('message_id', '=', messageId).executeTakeFirst();
  return row?.rating;
}

export async function deleteFeedback(db: Kysely<Database>, messageId: number): Promise<void> {
  await db.deleteFrom('answer_feedback').where('message_id', '=', messageId).execute();
}

export async function listFeedbackOfChats(db: Kysely<Database>, chatIds: readonly number[]): Promise<AnswerFeedbackRow[]> {
  if (chatIds.length === 0) return [];
  return db.selectFrom('answer_feedback').selectAll().where('chat_id', 'in', chatIds).execute();
}

/** Which ratings a listing wants: one rating only, and given or changed within a span of time (ISO timestamps, `before` excluded). */
export interface FeedbackFilter {
  rating?: 'up' | 'down' | undefined;
  since?: string | undefined;
  before?: string | undefined;
}

function scopedFeedback(db: Kysely<Database>, scope: ChatListScope, filter: FeedbackFilter) {
  let query = db
    .selectFrom('answer_feedback')
    .innerJoin('chats', 'chats.id', 'answer_feedback.chat_id')
    .where('answer_feedback.chat_id', 'in', scopedChatIds(db, scope));
  if (filter.rating !== undefined) query = query.where('answer_feedback.rating', '=', filter.rating);
  if (filter.since !== undefined) query = query.where('answer_feedback.updated_at', '>=', filter.since);
  if (filter.before !== undefined) query = query.where('answer_feedback.updated_at', '<', filter.before);
  return query;
}

/** A page of the ratings in the scope's chats, newest first. */
export async function listScopedFeedback(
  db: Kysely<Database>,
  scope: ChatListScope,
  page: { limit: number; offset: number; filter?: FeedbackFilter },
): Promise<{ items: ScopedFeedbackRow[]; total: number }> {
  const filter = page.filter ?? {};
  const items = await scopedFeedback(db, scope, filter)
    .selectAll('answer_feedback')
    .select('chats.owner_id')
    .orderBy('answer_feedback.updated_at', 'desc')
    .orderBy('answer_feedback.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const counted = await scopedFeedback(db, scope, filter)
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return { items, total: Number(counted.count) };
}

/** The rating of one answer, when the scope's chats include it; undefined otherwise. */
export async function findScopedFeedback(
  db: Kysely<Database>,
  scope: ChatListScope,
  messageId: number,
): Promise<ScopedFeedbackRow | undefined> {
  return scopedFeedback(db, scope, {})
    .selectAll('answer_feedback')
    .select('chats.owner_id')
    .where('answer_feedback.message_id', '=', messageId)
    .executeTakeFirst();
}
