/**
 * How a chat's questions and answers are written: each in one transaction that also moves the
 * branch shown to it and touches the chat, so a reader never sees a message that is not on the
 * branch shown, nor a branch ending at a message not yet kept. Kept apart from the chat service,
 * which decides who may write and when; the run keeper saves interrupted answers through it too.
 */
import type { Kysely } from 'kysely';
import { rollUpAnswer, type AnswerRollUpLimits } from '../insights/answer-roll-up.js';
import { findChat, insertMessage, nameUntitledChat, setActiveLeaf, touchChat, type ChatMessageRow } from '../store/chats-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import type { RecordedAnswer } from './answer-recording.js';
import { automaticTitle } from './chat-title.js';

function emptyMessage(chatId: number, createdAt: string) {
  return { chat_id: chatId, reasoning: null, sources: '[]', steps: '[]', usage: null, finish_reason: null, created_at: createdAt };
}

/** Keeps a question after `parentId` and shows the branch it starts. */
export async function keepQuestion(
  db: Kysely<Database>,
  chatId: number,
  question: { content: string; parentId: number | null },
): Promise<ChatMessageRow> {
  const now = nowTimestamp();
  const row = { ...emptyMessage(chatId, now), role: 'user' as const, content: question.content, parent_id: question.parentId };
  const id = await db.transaction().execute(async (transaction) => {
    const inserted = await insertMessage(transaction, row);
    await setActiveLeaf(transaction, chatId, inserted);
    await touchChat(transaction, chatId, now);
    return inserted;
  });
  return { ...row, id };
}

/** The model the assistant answers with, for pricing its answers in insights; '' when its metadata names none. */
async function assistantModel(db: Kysely<Database>, assistantId: number): Promise<string> {
  const row = await db.selectFrom('assistants').select('metadata').where('id', '=', assistantId).executeTakeFirst();
  try {
    const model = (JSON.parse(row?.metadata ?? '{}') as { llm?: unknown }).llm;
    return typeof model === 'string' ? model : '';
  } catch {
    return '';
  }
}

async function hasAnswer(db: Kysely<Database>, chatId: number): Promise<boolean> {
  const row = await db
    .selectFrom('chat_messages')
    .select('id')
    .where('chat_id', '=', chatId)
    .where('role', '=', 'assistant')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The answer follows its question as a new version, becomes the branch shown, and names an
 * untitled chat; in the same transaction it is added to its assistant's insights.
 */
export async function keepAnswer(
  db: Kysely<Database>,
  saved: { chatId: number; question: ChatMessageRow; answer: RecordedAnswer; insights: AnswerRollUpLimits },
): Promise<void> {
  const { chatId, question, answer } = saved;
  const now = nowTimestamp();
  await db.transaction().execute(async (transaction) => {
    // The chat may have been deleted while the answer ran: then there is nothing to keep it in.
    const chat = await findChat(transaction, chatId);
    if (chat === undefined) return;
    const firstAnswerOfChat = !(await hasAnswer(transaction, chatId));
    const answerId = await insertMessage(transaction, {
      ...emptyMessage(chatId, now),
      role: 'assistant',
      content: answer.content,
      reasoning: answer.reasoning,
      sources: JSON.stringify(answer.sources),
      steps: JSON.stringify(answer.steps),
      usage: answer.usage === null ? null : JSON.stringify(answer.usage),
      finish_reason: answer.finishReason,
      parent_id: question.id,
    });
    await setActiveLeaf(transaction, chatId, answerId);
    await touchChat(transaction, chatId, now);
    const title = automaticTitle(question.content);
    if (title !== '') await nameUntitledChat(transaction, chatId, title);
    const turn = {
      assistantId: chat.assistant_id,
      organizationId: chat.organization_id,
      learnerId: chat.owner_id,
      model: await assistantModel(transaction, chat.assistant_id),
      question: question.content,
      firstAnswerOfChat,
      answer,
      day: now.slice(0, 10),
    };
    await rollUpAnswer(transaction, turn, saved.insights);
  });
}
