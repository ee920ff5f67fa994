/**
 * Chats kept per person (docs/chats.md). A chat is only ever its owner's; its messages run through
 * the same completion pipeline as `/v1/chat/completions`, with the whole stored conversation as
 * the history, and each answer is saved as it ended (answer-recording.ts). The assistant's
 * managers may read members' chats with it only where the members' organization allows it, with
 * each learner shown by a pseudonym.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { assistantChatsScope, mayReadAssistantChats, ownChatsScope, requireChatOwner } from '../auth/permissions.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import { MODEL_ID_PREFIX, type CompletionRun, type CompletionService } from '../completions/completion-service.js';
import { AppError } from '../errors/app-error.js';
import type { ChatMessage } from '../pipeline/conversation/messages.js';
import { findAssistant, type AssistantRecord } from '../store/assistants-repository.js';
import {
  countMessages,
  deleteChat,
  deleteChatsOfOwner,
  findChat,
  findScopedChat,
  insertChat,
  listChats,
  listMessages,
  setActiveLeaf,
  setChatTitle,
  type ChatMessageRow,
  type ChatRecord,
} from '../store/chats-repository.js';
import { listFeedbackOfChats } from '../store/answer-feedback-repository.js';
import { findOrganizationPolicies } from '../store/organization-settings-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import type { PageQuery } from '../validation/page-query-schema.js';
import { recordedAnswer, type RecordedAnswer } from './answer-recording.js';
import { keepAnswer, keepQuestion } from './chat-message-writing.js';
import type { ChatRunKeeper } from './chat-run-keeper.js';
import { learnerPseudonym } from './learner-pseudonym.js';
import type { ChatView } from './chat-schemas.js';
import { chatView, type ChatMessageView } from './chat-view.js';
import { chatMessagesShown } from './chat-branch-view.js';
import { branchTo, newestLeafBelow } from './message-tree.js';
import type { chatListFilters } from './chat-list-filters.js';

export interface ChatLimits {
  messagesMaximum: number;
  /** How many terms of each question feed its assistant's topics (INSIGHTS_QUESTION_TERMS_MAX). */
  topicTermsPerQuestionMaximum: number;
}

export interface ChatServiceDependencies {
  db: Kysely<Database>;
  completions: CompletionService;
  limits: ChatLimits;
  /** Answers run under it: they belong to the chat, and any process can follow or stop them. */
  runs: ChatRunKeeper;
  /** A stable keyed digest of a user id: the same learner gets the same pseudonym on every process. */
  pseudonymDigest: (userId: number) => string;
  /** Deletes the generated images of chats that no longer exist (generated-image-files.ts): a chat's images go with it. */
  deleteImagesOfDeletedChats: () => Promise<number>;
}

export type ChatWithMessages = ChatView & { messages: ChatMessageView[] };

/** A chat as its assistant's managers read it: the learner by pseudonym, never by email or id. */
export type ReadableChat = ChatView & { learner: string };
export type ReadableChatWithMessages = ReadableChat & { messages: ChatMessageView[] };

/** Whose chats an LTI activity's dashboard asks for: members of one organization, at most `limit` chats. */
export interface ChatAudience {
  organizationId: number;
  learnerUserIds: readonly number[];
  limit: number;
}

export interface ChatPage<Item> {
  items: Item[];
  total: number;
}

/**
 * An answer being produced: the run to send to the client. Its events are a live follower of a
 * run that belongs to the chat (chat-run-keeper.ts): the client leaving ends only the following.
 */
export interface ChatTurn {
  run: CompletionRun;
  /** The model id the answer names: `lamb_assistant.<id>`. */
  modelId: string;
}

/** An exported chat: the branch it shows, and every other version kept, so nothing is lost. */
export type ExportedChat = ChatWithMessages & { other_versions: ChatMessageView[] };

export interface ChatExport {
  exported_at: string;
  chats: ExportedChat[];
}

/** An export without a limit holds every chat; the store takes this as no limit at all. */
const EVERY_ROW = Number.MAX_SAFE_INTEGER;

export interface ChatExportQuery {
  limit?: number | undefined;
  offset?: number | undefined;
  q?: string | undefined;
  assistant_id?: number | undefined;
}

function pipelineHistory(messages: readonly ChatMessageRow[]): ChatMessage[] {
  return messages.map((message) => ({ role: message.role, content: message.content }));
}

export class ChatService {
  constructor(private readonly dependencies: ChatServiceDependencies) {
    dependencies.runs.keepInterruptedAnswersWith((chatId, answer) => this.keepInterruptedAnswer(chatId, answer));
  }

  /** The runs this service's answers run under: main.ts starts and stops their sweep. */
  get runs(): ChatRunKeeper {
    return this.dependencies.runs;
  }

  private get db(): Kysely<Database> {
    return this.dependencies.db;
  }

  private async ownChat(context: CallContext, chatId: number): Promise<ChatRecord> {
    const chat = await findChat(this.db, chatId);
    requireChatOwner(context.identity, chat && { ownerId: chat.owner_id });
    return chat as ChatRecord;
  }

  /** The assistant, if the caller may chat with it (the rule of /v1/chat/completions); 404 naming `assistant_id` otherwise. */
  private async chatAssistant(context: CallContext, assistantId: number): Promise<AssistantRecord> {
    try {
      return await this.dependencies.completions.resolveModel(context, `${MODEL_ID_PREFIX}${assistantId}`);
    } catch (error) {
      if (error instanceof AppError && error.code === 'model_not_found')
        throw new AppError('not_found', 'Assistant not found, or you may not chat with it.', { param: 'assistant_id' });
      throw error;
    }
  }

  /** Each chat with the branch it shows; `every` adds the other versions (an export). */
  private async withMessages(chats: readonly ChatRecord[], every = false): Promise<ExportedChat[]> {
    const ids = chats.map((chat) => chat.id);
    const [messages, feedback] = await Promise.all([listMessages(this.db, ids), listFeedbackOfChats(this.db, ids)]);
    return chats.map((chat) => {
      const shown = chatMessagesShown(chat, messages, feedback);
      return { ...chatView(chat), messages: shown.branch, other_versions: every ? shown.otherVersions : [] };
    });
  }

  /** The chat as GET shows it: without the export's other versions. */
  private async shownChat(chat: ChatRecord): Promise<ChatWithMessages> {
    const [{ other_versions: _others, ...shown }] = (await this.withMessages([chat])) as [ExportedChat];
    return shown;
  }

  async create(context: CallContext, input: { assistant_id: number; title?: string | undefined }): Promise<ChatView> {
    const assistant = await this.chatAssistant(context, input.assistant_id);
    const id = await insertChat(this.db, {
      organizationId: context.identity.organizationId,
      ownerId: context.identity.userId,
      assistantId: assistant.id,
      title: input.title?.trim() ?? '',
      createdAt: nowTimestamp(),
    });
    return chatView(await this.ownChat(context, id));
  }

  async list(context: CallContext, query: PageQuery<typeof chatListFilters>): Promise<ChatPage<ChatView>> {
    const page = await listChats(this.db, ownChatsScope(context.identity), {
      limit: query.limit,
      offset: query.offset,
      assistantId: query.assistant_id,
      search: query.q,
    });
    return { items: page.items.map(chatView), total: page.total };
  }

  async get(context: CallContext, chatId: number): Promise<ChatWithMessages> {
    return this.shownChat(await this.ownChat(context, chatId));
  }

  async rename(context: CallContext, chatId: number, title: string): Promise<ChatView> {
    await this.ownChat(context, chatId);
    await setChatTitle(this.db, chatId, title.trim(), nowTimestamp());
    return chatView(await this.ownChat(context, chatId));
  }

  async delete(context: CallContext, chatId: number): Promise<void> {
    await this.ownChat(context, chatId);
    await deleteChat(this.db, chatId);
    await this.dependencies.deleteImagesOfDeletedChats();
  }

  async deleteAll(context: CallContext): Promise<void> {
    await deleteChatsOfOwner(this.db, context.identity.userId);
    await this.dependencies.deleteImagesOfDeletedChats();
  }

  /** All of the caller's chats with their messages, or the part the list's own filters and page name. */
  async exportAll(context: CallContext, query: ChatExportQuery): Promise<ChatExport> {
    const page = await listChats(this.db, ownChatsScope(context.identity), {
      limit: query.limit ?? EVERY_ROW,
      offset: query.offset ?? 0,
      assistantId: query.assistant_id,
      search: query.q,
    });
    return { exported_at: nowTimestamp(), chats: await this.withMessages(page.items, true) };
  }

  /** Saves the question, then starts the answer on the whole conversation. */
  async sendMessage(context: CallContext, chatId: number, content: string): Promise<ChatTurn> {
    const chat = await this.ownChat(context, chatId);
    await this.requireRoom(chatId, 2);
    // Checked before the question is kept: a chat with an assistant the owner may no longer use takes no more questions.
    const assistant = await this.chatAssistant(context, chat.assistant_id);
    // Claimed before the question is kept too: a chat still answering, or an owner at their bound, takes no question.
    const claimed = await this.dependencies.runs.begin(chatId, context.identity.userId);
    const question = await keepQuestion(this.db, chatId, { content, parentId: chat.active_leaf_id }).catch(async (error: unknown) => {
      await this.dependencies.runs.abandon(claimed.runId);
      throw error;
    });
    return this.answer(context, { chat, assistant, claimed, question });
  }

  /**
   * A new version of one of the chat's questions: it follows what the original followed, becomes
   * the branch shown, and is answered; the original and its answers stay as the other version.
   */
  async editQuestion(context: CallContext, target: { chatId: number; messageId: number }, content: string): Promise<ChatTurn> {
    const chat = await this.ownChat(context, target.chatId);
    const original = (await listMessages(this.db, [chat.id])).find((message) => message.id === target.messageId);
    if (original?.role !== 'user') throw new AppError('not_found', 'Question not found in this chat.', { param: 'messageId' });
    await this.requireRoom(chat.id, 2);
    const assistant = await this.chatAssistant(context, chat.assistant_id);
    const claimed = await this.dependencies.runs.begin(chat.id, context.identity.userId);
    const question = await keepQuestion(this.db, chat.id, { content, parentId: original.parent_id }).catch(async (error: unknown) => {
      await this.dependencies.runs.abandon(claimed.runId);
      throw error;
    });
    return this.answer(context, { chat, assistant, claimed, question });
  }

  /** Shows the branch through `messageId`, following the newest version below it; answers the chat as GET does. */
  async selectVersion(context: CallContext, chatId: number, messageId: number): Promise<ChatWithMessages> {
    const chat = await this.ownChat(context, chatId);
    const messages = await listMessages(this.db, [chat.id]);
    if (!messages.some((message) => message.id === messageId))
      throw new AppError('not_found', 'Message not found in this chat.', { param: 'message_id' });
    await setActiveLeaf(this.db, chat.id, newestLeafBelow(messages, messageId));
    return this.shownChat(await this.ownChat(context, chatId));
  }

  private async requireRoom(chatId: number, messages: number): Promise<void> {
    if ((await countMessages(this.db, chatId)) + messages > this.dependencies.limits.messagesMaximum)
      throw new AppError('chat_full', undefined, { details: { messages_maximum: this.dependencies.limits.messagesMaximum } });
  }

  /** Answers the last question of the branch shown again: a new version beside the answer it had, shown once saved. */
  async regenerate(context: CallContext, chatId: number): Promise<ChatTurn> {
    const chat = await this.ownChat(context, chatId);
    const branch = branchTo(await listMessages(this.db, [chatId]), chat.active_leaf_id);
    const question = branch.findLast((message) => message.role === 'user');
    if (question === undefined) throw new AppError('nothing_to_regenerate');
    await this.requireRoom(chat.id, 1);
    const assistant = await this.chatAssistant(context, chat.assistant_id);
    const claimed = await this.dependencies.runs.begin(chatId, context.identity.userId);
    return this.answer(context, { chat, assistant, claimed, question });
  }

  /** Follows the chat's running answer from the store, from its first event; undefined when none runs. */
  async followRun(context: CallContext, chatId: number, signal: AbortSignal): Promise<ChatTurn | undefined> {
    const chat = await this.ownChat(context, chatId);
    const runId = await this.dependencies.runs.running(chatId);
    if (runId === undefined) return undefined;
    const run: CompletionRun = {
      assistantId: chat.assistant_id,
      traceId: undefined,
      statusAsContent: false,
      events: this.dependencies.runs.followStored(runId, signal),
    };
    return { run, modelId: `${MODEL_ID_PREFIX}${chat.assistant_id}` };
  }

  /** Stops the chat's running answer wherever it runs; resolves once the partial answer is kept. */
  async stopRun(context: CallContext, chatId: number): Promise<void> {
    await this.ownChat(context, chatId);
    await this.dependencies.runs.stop(chatId);
  }

  private async answer(
    context: CallContext,
    turn: { chat: ChatRecord; assistant: AssistantRecord; claimed: { runId: number; signal: AbortSignal }; question: ChatMessageRow },
  ): Promise<ChatTurn> {
    const { chat, assistant, claimed, question: lastQuestion } = turn;
    const conversation = branchTo(await listMessages(this.db, [chat.id]), lastQuestion.id);
    let run: CompletionRun;
    try {
      run = await this.dependencies.completions.start({
        context,
        record: assistant,
        request: { messages: pipelineHistory(conversation), parameters: {} },
        signal: claimed.signal,
        chatId: chat.id,
      });
    } catch (error) {
      await this.dependencies.runs.abandon(claimed.runId);
      throw error;
    }
    const save = (answer: RecordedAnswer) => this.saveAnswer(chat.id, lastQuestion, answer);
    const events = this.dependencies.runs.produce(claimed.runId, recordedAnswer(run.events, claimed.signal, save));
    return { run: { ...run, events }, modelId: `${MODEL_ID_PREFIX}${assistant.id}` };
  }

  /** An answer whose process died, rebuilt from its log: kept as the answer to the chat's last question. */
  private async keepInterruptedAnswer(chatId: number, answer: RecordedAnswer): Promise<void> {
    const chat = await findChat(this.db, chatId);
    if (chat === undefined) return;
    // The run answered the last question of the branch shown when it began; a question always becomes the branch shown.
    const question = branchTo(await listMessages(this.db, [chatId]), chat.active_leaf_id).findLast((message) => message.role === 'user');
    if (question !== undefined) await this.saveAnswer(chatId, question, answer);
  }

  private async saveAnswer(chatId: number, question: ChatMessageRow, answer: RecordedAnswer): Promise<void> {
    const insights = { termsPerQuestionMaximum: this.dependencies.limits.topicTermsPerQuestionMaximum };
    await keepAnswer(this.db, { chatId, question, answer, insights });
  }

  /** The chats members had with an assistant, for its managers, where the members' organization allows it. */
  async listOfAssistant(context: CallContext, assistantId: number, query: PageQuery): Promise<ChatPage<ReadableChat>> {
    const scope = await this.assistantReadersScope(context, assistantId);
    const page = await listChats(this.db, scope, { limit: query.limit, offset: query.offset, assistantId: undefined, search: query.q });
    return { items: page.items.map((chat) => this.readableChat(chat)), total: page.total };
  }

  async getOfAssistant(context: CallContext, assistantId: number, chatId: number): Promise<ReadableChat & { messages: ChatMessageView[] }> {
    const scope = await this.assistantReadersScope(context, assistantId);
    const chat = await findScopedChat(this.db, scope, chatId);
    if (chat === undefined) throw new AppError('not_found', 'Chat not found.');
    return { ...(await this.shownChat(chat)), learner: this.pseudonym(chat.owner_id) };
  }

  /**
   * The chats an organization's members had with an assistant, with their messages, for an LTI
   * activity's dashboard: undefined when the caller may not read the assistant's chats or the
   * organization keeps its members' chats private, so the page can say so rather than "none".
   */
  async ofMembers(context: CallContext, assistantId: number, audience: ChatAudience): Promise<ReadableChatWithMessages[] | undefined> {
    const assistant = await findAssistant(this.db, assistantId, context.identity.userId);
    if (assistant === undefined || !mayReadAssistantChats(context.identity, assistantFacts(assistant))) return undefined;
    if ((await findOrganizationPolicies(this.db, audience.organizationId))?.ownersCanReadChats !== true) return undefined;
    const scope = assistantChatsScope(context.identity, { ...assistantFacts(assistant), id: assistant.id });
    const page = await listChats(this.db, scope, {
      limit: audience.limit,
      offset: 0,
      assistantId: undefined,
      search: undefined,
      ownerIds: audience.learnerUserIds,
    });
    const chats = await this.withMessages(page.items);
    return chats.map(({ other_versions: _others, ...chat }, index) => ({
      ...chat,
      learner: this.pseudonym((page.items[index] as ChatRecord).owner_id),
    }));
  }

  private async assistantReadersScope(context: CallContext, assistantId: number) {
    const assistant = await findAssistant(this.db, assistantId, context.identity.userId);
    if (assistant === undefined) throw new AppError('not_found', 'Assistant not found.');
    return assistantChatsScope(context.identity, { ...assistantFacts(assistant), id: assistant.id });
  }

  private readableChat(chat: ChatRecord): ReadableChat {
    return { ...chatView(chat), learner: this.pseudonym(chat.owner_id) };
  }

  private pseudonym(userId: number): string {
    return learnerPseudonym(this.dependencies.pseudonymDigest, userId);
  }
}
