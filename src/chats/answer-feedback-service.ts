/**
 * Ratings of answers (docs/chats.md): the owner of a chat rates its answers, thumb up or down with
 * an optional comment, one rating per answer, and reads them back with the chat. An assistant's
 * managers read the ratings of members' answers, learners by pseudonym, under the same rule as
 * members' chats (DESIGN §8, §9): only where the members' organization lets owners read chats.
 * Nobody else ever sees a rating: another person's chat or assistant is simply not found. A
 * comment is the learner's own text, so it goes with the chat: with the setting off, managers see
 * no rating at all, only the counts in the assistant's insights (docs/assistant-insights.md), which
 * each rating adds to in the transaction that keeps it.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { assistantChatsScope, requireChatOwner } from '../auth/permissions.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import { AppError } from '../errors/app-error.js';
import { deleteFeedback, listScopedFeedback, lockedRating, upsertFeedback } from '../store/answer-feedback-repository.js';
import { addInsightsDay } from '../store/assistant-insights-repository.js';
import { findAssistant } from '../store/assistants-repository.js';
import { findChat, listMessages, type ChatMessageRow, type ChatRecord } from '../store/chats-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import type { AssistantFeedbackQuery, AssistantFeedbackView, FeedbackView } from './answer-feedback-schemas.js';
import { feedbackSpan } from './feedback-days.js';
import { learnerPseudonym } from './learner-pseudonym.js';
import { branchTo } from './message-tree.js';

export interface AnswerFeedbackDependencies {
  db: Kysely<Database>;
  /** The same digest the chats use, so a learner has one pseudonym everywhere. */
  pseudonymDigest: (userId: number) => string;
  /** How many messages of the conversation a listed rating shows, its answer included (INSIGHTS_FEEDBACK_TURNS_MAX). */
  turnsMaximum: number;
}

/** A rated answer of one of the caller's chats. */
interface OwnAnswer {
  chat: ChatRecord;
  answer: ChatMessageRow;
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
  private async ownAnswer(context: CallContext, target: AnswerTarget): Promise<OwnAnswer> {
    const chat = await findChat(this.dependencies.db, target.chatId);
    requireChatOwner(context.identity, chat && { ownerId: chat.owner_id });
    const messages = await listMessages(this.dependencies.db, [target.chatId]);
    const answer = messages.find((message) => message.id === target.messageId);
    if (chat === undefined || answer?.role !== 'assistant')
      throw new AppError('not_found', 'Answer not found in this chat.', { param: 'messageId' });
    return { chat, answer };
  }

  /** Moves the insights' rating counters from the rating before to the rating after, on the answer's day. */
  private async countRating(
    transaction: Kysely<Database>,
    rated: OwnAnswer,
    change: { before: 'up' | 'down' | undefined; after: 'up' | 'down' | undefined },
  ): Promise<void> {
    if (change.before === change.after) return;
    const counters: Partial<Record<'feedback_up' | 'feedback_down', number>> = {};
    if (change.before !== undefined) counters[`feedback_${change.before}`] = -1;
    if (change.after !== undefined) counters[`feedback_${change.after}`] = 1;
    await addInsightsDay(transaction, { assistantId: rated.chat.assistant_id, day: rated.answer.created_at.slice(0, 10), counters });
  }

  async rate(context: CallContext, target: AnswerTarget, rating: Rating): Promise<FeedbackView> {
    const rated = await this.ownAnswer(context, target);
    const comment = rating.comment?.trim() ?? '';
    const row = await this.dependencies.db.transaction().execute(async (transaction) => {
      const before = await lockedRating(transaction, target.messageId);
      const kept = await upsertFeedback(transaction, {
        messageId: target.messageId,
        chatId: target.chatId,
        rating: rating.rating,
        comment: comment === '' ? null : comment,
        now: nowTimestamp(),
      });
      await this.countRating(transaction, rated, { before, after: kept.rating });
      return kept;
    });
    return { rating: row.rating, comment: row.comment, updated_at: row.updated_at };
  }

  async clear(context: CallContext, target: AnswerTarget): Promise<void> {
    const rated = await this.ownAnswer(context, target);
    await this.dependencies.db.transaction().execute(async (transaction) => {
      const before = await lockedRating(transaction, target.messageId);
      await deleteFeedback(transaction, target.messageId);
      await this.countRating(transaction, rated, { before, after: undefined });
    });
  }

  /** The last messages of the branch that led to each answer, the answer included. */
  private async turnsLeadingTo(answers: readonly { chat_id: number; message_id: number }[]) {
    const messages = await listMessages(this.dependencies.db, [...new Set(answers.map((answer) => answer.chat_id))]);
    return answers.map((answer) =>
      branchTo(
        messages.filter((message) => message.chat_id === answer.chat_id),
        answer.message_id,
      )
        .slice(-this.dependencies.turnsMaximum)
        .map((message) => ({ id: message.id, role: message.role, content: message.content, created_at: message.created_at })),
    );
  }

  /**
   * The ratings of members' answers of an assistant the caller manages, newest first, each with
   * the conversation that led to it: only chats the members' organization lets owners read.
   */
  async ofAssistant(
    context: CallContext,
    assistantId: number,
    query: AssistantFeedbackQuery,
  ): Promise<{ items: AssistantFeedbackView[]; total: number }> {
    const assistant = await findAssistant(this.dependencies.db, assistantId, context.identity.userId);
    if (assistant === undefined) throw new AppError('not_found', 'Assistant not found.');
    const scope = assistantChatsScope(context.identity, { ...assistantFacts(assistant), id: assistant.id });
    const filter = { rating: query.rating, ...feedbackSpan(query) };
    const page = await listScopedFeedback(this.dependencies.db, scope, { limit: query.limit, offset: query.offset, filter });
    const turns = await this.turnsLeadingTo(page.items);
    return {
      total: page.total,
      items: page.items.map((row, index) => ({
        id: row.id,
        chat_id: row.chat_id,
        message_id: row.message_id,
        learner: learnerPseudonym(this.dependencies.pseudonymDigest, row.owner_id),
        rating: row.rating,
        comment: row.comment,
        updated_at: row.updated_at,
        created_at: row.created_at,
        turns: turns[index] ?? [],
      })),
    };
  }
}
