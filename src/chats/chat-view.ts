/**
 * Chats and messages as the API shows them (docs/chats.md): timestamps in ISO-8601, JSON columns
 * parsed, and for readers other than the owner, the learner named by a pseudonym only. ChatView
 * and ChatStep are read from chat-schemas.ts; ChatMessageView is pinned to its schema by a test.
 */
import type { FinishReason, Source, Usage } from '../pipeline/conversation/events.js';
import type { ChatMessageRow, ChatRecord } from '../store/chats-repository.js';
import type { FeedbackView } from './answer-feedback-schemas.js';
import type { ChatStep, ChatView } from './chat-schemas.js';
import type { AnswerFeedbackRow } from '../store/answer-feedback-repository.js';

export interface ChatMessageView {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  reasoning: string | null;
  sources: Source[];
  steps: ChatStep[];
  usage: Usage | null;
  /** The model's finish reason, or `stopped` for an answer the learner stopped (or left) part way. */
  finish_reason: FinishReason | 'stopped' | 'interrupted' | null;
  created_at: string;
  parent_id: number | null;
  /** Every version of this message, itself included, oldest first (message-tree.ts). */
  version_ids: number[];
  feedback: FeedbackView | null;
}

export function chatView(record: ChatRecord): ChatView {
  return {
    id: record.id,
    assistant_id: record.assistant_id,
    assistant_name: record.assistant_name,
    title: record.title,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

function parsedArray<Item>(text: string): Item[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? (value as Item[]) : [];
}

/** What a message's view needs beyond its row: its versions and its rating. */
export interface MessageSurroundings {
  versionIds: number[];
  feedback: AnswerFeedbackRow | undefined;
}

function feedbackView(row: AnswerFeedbackRow | undefined): FeedbackView | null {
  return row === undefined ? null : { rating: row.rating, comment: row.comment, updated_at: row.updated_at };
}

export function chatMessageView(row: ChatMessageRow, surroundings: MessageSurroundings): ChatMessageView {
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    reasoning: row.reasoning,
    sources: parsedArray<Source>(row.sources),
    steps: parsedArray<ChatStep>(row.steps),
    usage: row.usage === null ? null : (JSON.parse(row.usage) as Usage),
    finish_reason: row.finish_reason as ChatMessageView['finish_reason'],
    created_at: row.created_at,
    parent_id: row.parent_id,
    version_ids: surroundings.versionIds,
    feedback: feedbackView(surroundings.feedback),
  };
}
