/**
 * Ratings of answers (docs/chats.md): the owner of a chat rates its answers, thumb up or down with
 * an optional comment, one rating per answer, and reads them back with the chat. An assistant's
 * managers read the ratings of members' answers, learners by pseudonym, under the same rule as
 * members' chats (DESIGN §8, §9): only where the members' organization lets owners read chats.
 * Nobody else ever sees a rating: another person's chat or assistant is simply not found.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { assistantChatsScope, requireChatOwner } from '../auth/permissions.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import { AppError } from '../errors/app-error.js';
import { deleteFeedback, listScopedFeedback, upsertFeedback } from '../store/answer-feedback-repository.js';
import { findAssistant } from '../store/assistants-repository.js';
import { findChat, listMessages } from '../store/chats-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import type { PageQuery } from '../validation/page-query-schema.js';
import type { AssistantFeedbackView, FeedbackView } from './answer-feedback-schemas.js';
import { learnerPseudonym } from './learner-pseudonym.js';

export interface AnswerFeedbackDependencies {
  db: Kysely<Database>;
  /** The same digest the chats use, so a learner has one pseudonym everywhere. */
  pseudonymDigest: (userId: number) => string;
}

export interface AnswerTarget {
  chatId: number;
  messageId: number;
}

export interface Rating {
  rating: 'up' | 'down';
  comment?: string | null | undefined;
}

export class AnswerFeedbackService {
  constructor(private readonly dependencies: AnswerFeedbackDependencies) {}

  /** The answer, if it is one of the caller's own chat; 404 otherwise, whoever asks. */
  private async ownAnswer(context: CallContext, target: AnswerTarget): Promise<void> {
    const chat = await findChat(this.dependencies.db, target.chatId);
    requireChatOwner(context.identity, chat && { ownerId: chat.owner_id });
    const messages = await listMessages(this.dependencies.db, [target.chatId]);
    const answer = messages.find((message) => message.id === target.messageId);
    if (answer?.role !== 'assistant') throw new AppError('not_found', 'Answer not found in this chat.', { param: 'messageId' });
  }

  async rate(context: CallContext, target: AnswerTarget, rating: Rating): Promise<FeedbackView> {
    await this.ownAnswer(context, target);
    const comment = rating.comment?.trim() ?? '';
    const row = await upsertFeedback(this.dependencies.db, {
      messageId: target.messageId,
      chatId: target.chatId,
      rating: rating.rating,
      comment: comment === '' ? null : comment,
      now: nowTimestamp(),
    });
    return { rating: row.rating, comment: row.comment, updated_at: row.updated_at };
  }

  async clear(context: CallContext, target: AnswerTarget): Promise<void> {
    await this.ownAnswer(context, target);
    await deleteFeedback(this.dependencies.db, target.messageId);
  }

  /** The ratings of members' answers of an assistant the caller manages, newest first. */
  async ofAssistant(
    context: CallContext,
    assistantId: number,
    query: PageQuery,
  ): Promise<{ items: AssistantFeedbackView[]; total: number }> {
    const assistant = await findAssistant(this.dependencies.db, assistantId, context.identity.userId);
    if (assistant === undefined) throw new AppError('not_found', 'Assistant not found.');
    const scope = assistantChatsScope(context.identity, { ...assistantFacts(assistant), id: assistant.id });
    const page = await listScopedFeedback(this.dependencies.db, scope, { limit: query.limit, offset: query.offset });
    return {
      total: page.total,
      items: page.items.map((row) => ({
        id: row.id,
        chat_id: row.chat_id,
        message_id: row.message_id,
        learner: learnerPseudonym(this.dependencies.pseudonymDigest, row.owner_id),
        rating: row.rating,
        comment: row.comment,
        updated_at: row.updated_at,
        created_at: row.created_at,
      })),
    };
  }
}
