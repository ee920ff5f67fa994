/**
 * The messages a chat shows: the branch that ends at its active leaf, each message with the ids of
 * its versions and the owner's rating (message-tree.ts). An export also carries the messages of the
 * other branches, so nothing kept is left out of it.
 */
import type { AnswerFeedbackRow } from '../store/answer-feedback-repository.js';
import type { ChatMessageRow, ChatRecord } from '../store/chats-repository.js';
import { chatMessageView, type ChatMessageView } from './chat-view.js';
import { branchTo, versionIds } from './message-tree.js';

export interface ChatMessagesShown {
  /** The branch shown, oldest first. */
  branch: ChatMessageView[];
  /** Every other kept message (earlier versions and their branches), oldest first. */
  otherVersions: ChatMessageView[];
}

/** The chat's messages, split into the branch it shows and the rest; `messages` and `feedback` may hold other chats' too. */
export function chatMessagesShown(
  chat: ChatRecord,
  messages: readonly ChatMessageRow[],
  feedback: readonly AnswerFeedbackRow[],
): ChatMessagesShown {
  const own = messages.filter((message) => message.chat_id === chat.id);
  const ratings = new Map(feedback.filter((row) => row.chat_id === chat.id).map((row) => [row.message_id, row]));
  const view = (message: ChatMessageRow) =>
    chatMessageView(message, { versionIds: versionIds(own, message), feedback: ratings.get(message.id) });
  const branch = branchTo(own, chat.active_leaf_id);
  const shown = new Set(branch.map((message) => message.id));
  return { branch: branch.map(view), otherVersions: own.filter((message) => !shown.has(message.id)).map(view) };
}
