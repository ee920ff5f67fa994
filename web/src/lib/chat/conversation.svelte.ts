/**
 * One conversation on the chat page: its kept messages, the answer streaming in, and what the
 * page can do with it (send, stop, regenerate). A new conversation becomes a kept chat on its
 * first message; `onCreated` lets the page move its address to the chat's own without a reload.
 * An answer belongs to its chat, not to this page: opening a chat whose answer is still running
 * rejoins it live, and only Stop (which tells the server) stops it.
 */
import { ApiError } from '$lib/api/api-error';
import { readAssistant } from '$lib/api/assistants';
import type { Chat, ChatMessage, ChatWithMessages } from '$lib/api/chat-types';
import {
  readChat,
  rejoinAnswer,
  showVersion,
  startChat,
  stopAnswer,
  streamAnswer,
  streamEditedQuestion,
  streamRegeneratedAnswer,
} from '$lib/api/chats';
import { formatTimestamp } from '$lib/i18n/format-timestamp';
import { serverErrorText } from '$lib/i18n/server-error-text';
import { t } from '$lib/i18n/translate.svelte';
import { readChatStream } from './chat-stream';
import { applyStreamEvent, emptyAnswer, timestampNow, type LiveAnswer } from './live-answer';

export type LoadOutcome = 'ready' | 'not-found' | 'failed';

interface ConversationEvents {
  /** The chat was created for the first message; the page changes its address. */
  onCreated: (chat: Chat) => Promise<void>;
  /** The chat list changed (a new chat, a new title). */
  onListChanged: () => void;
}

function isNotFound(caught: unknown): boolean {
  return caught instanceof ApiError && (caught.status === 404 || caught.status === 403);
}

/** In the reader's language where the server gave a code the catalogue knows. */
function messageOf(caught: unknown): string {
  if (!(caught instanceof ApiError)) return caught instanceof Error ? caught.message : String(caught);
  const text = serverErrorText(caught.code, caught.message);
  // The server names the reset in UTC; the reader also gets it in their own zone.
  const resetsAt = caught.code === 'quota_exceeded' ? caught.details['resets_at'] : undefined;
  if (typeof resetsAt !== 'string' || Number.isNaN(Date.parse(resetsAt))) return text;
  return `${text} ${t('chat.quotaResetsLocal', { when: formatTimestamp(resetsAt) })}`;
}

/** A rejoin found no answer running: nothing to show. */
class NothingRunning extends Error {}

export class Conversation {
  readonly assistantId: number;
  chatId: string | undefined = $state();
  title = $state('');
  assistantName = $state('');
  messages: ChatMessage[] = $state([]);
  /** The user's message while its chat is created and sent, before the server keeps it. */
  pendingQuestion: string | undefined = $state();
  live: LiveAnswer | undefined = $state();
  /** An answer that failed; kept on screen with its error, never stored. */
  failed: LiveAnswer | undefined = $state();
  sendError: string | undefined = $state();
  busy = $state(false);
  #controller: AbortController | undefined;
  readonly #events: ConversationEvents;

  constructor(assistantId: number, events: ConversationEvents) {
    this.assistantId = assistantId;
    this.#events = events;
  }

  get streaming(): boolean {
    return this.live !== undefined && !this.live.ended;
  }

  /** A new conversation: the assistant must exist for the caller. */
  async loadAssistant(): Promise<LoadOutcome> {
    try {
      this.assistantName = (await readAssistant(this.assistantId)).name;
      return 'ready';
    } catch (caught) {
      return isNotFound(caught) ? 'not-found' : 'failed';
    }
  }

  /** A kept conversation: another person's chat, or one of another assistant, is not found. */
  async loadChat(chatId: string): Promise<LoadOutcome> {
    if (!/^\d{1,15}$/.test(chatId)) return 'not-found';
    try {
      const chat = await readChat(Number(chatId));
      if (chat.assistant_id !== this.assistantId) return 'not-found';
      this.#show(chat);
      void this.#rejoin(chat.id);
      return 'ready';
    } catch (caught) {
      return isNotFound(caught) ? 'not-found' : 'failed';
    }
  }

  #show(chat: ChatWithMessages): void {
    this.chatId = String(chat.id);
    this.title = chat.title;
    this.assistantName = chat.assistant_name;
    this.messages = chat.messages;
  }

  async send(text: string): Promise<void> {
    this.sendError = undefined;
    this.failed = undefined;
    this.pendingQuestion = text;
    this.busy = true;
    try {
      if (this.chatId === undefined) {
        const chat = await startChat(this.assistantId);
        this.chatId = String(chat.id);
        this.title = chat.title;
        await this.#events.onCreated(chat);
        this.#events.onListChanged();
      }
    } catch (caught) {
      this.sendError = messageOf(caught);
      this.pendingQuestion = undefined;
      this.busy = false;
      return;
    }
    const chatId = Number(this.chatId);
    await this.#stream((signal) => streamAnswer(chatId, text, signal));
  }

  async regenerate(): Promise<void> {
    if (this.chatId === undefined || this.streaming) return;
    this.sendError = undefined;
    this.failed = undefined;
    const last = this.messages.at(-1);
    if (last?.role === 'assistant') this.messages = this.messages.slice(0, -1);
    this.busy = true;
    const chatId = Number(this.chatId);
    await this.#stream((signal) => streamRegeneratedAnswer(chatId, signal));
  }

  /** A new version of a kept question: the branch from it is replaced on screen by the edit and its answer. */
  async edit(messageId: number, text: string): Promise<void> {
    if (this.chatId === undefined || this.streaming || this.busy) return;
    this.sendError = undefined;
    this.failed = undefined;
    const index = this.messages.findIndex((message) => message.id === messageId);
    if (index >= 0) this.messages = this.messages.slice(0, index);
    this.pendingQuestion = text;
    this.busy = true;
    const chatId = Number(this.chatId);
    await this.#stream((signal) => streamEditedQuestion({ chatId, messageId }, text, signal));
  }

  /** Shows another version of a message, and the branch that goes on from it. */
  async showVersion(messageId: number): Promise<void> {
    if (this.chatId === undefined || this.streaming || this.busy) return;
    this.sendError = undefined;
    try {
      this.#show(await showVersion(Number(this.chatId), messageId));
      this.failed = undefined;
    } catch (caught) {
      this.sendError = messageOf(caught);
    }
  }

  /** Stops the answer on the server (wherever it runs), then stops following it; Send waits until it is kept. */
  async stop(): Promise<void> {
    const controller = this.#controller;
    if (controller === undefined) return;
    this.busy = true;
    controller.abort();
    try {
      if (this.chatId !== undefined) await stopAnswer(Number(this.chatId));
    } catch {
      // The answer may have ended meanwhile; a reload shows what was kept.
    } finally {
      this.busy = false;
    }
  }

  /** Follows the chat's answer that is still running, if any, from its first word; then shows the kept chat. */
  async #rejoin(chatId: number): Promise<void> {
    if (this.#controller !== undefined) return;
    const endedWithQuestion = this.messages.at(-1)?.role === 'user';
    const rejoined = { running: false };
    await this.#stream(async (signal) => {
      const stream = await rejoinAnswer(chatId, signal);
      if (stream === undefined) throw new NothingRunning();
      rejoined.running = true;
      return stream;
    });
    // The answer may have ended between reading the chat and asking for it, or been cut off with its
    // server (the chat then keeps what had arrived, marked interrupted): either way the chat holds it now.
    const cutOff = rejoined.running && this.failed !== undefined;
    if (((!rejoined.running && endedWithQuestion) || cutOff) && this.chatId === String(chatId)) {
      try {
        const chat = await readChat(chatId);
        if (cutOff && chat.messages.at(-1)?.role !== 'assistant') return;
        this.failed = undefined;
        this.#show(chat);
        // The kept answer may have named the chat.
        this.#events.onListChanged();
      } catch {
        // What is on screen stays; a reload shows the stored chat.
      }
    }
  }

  /** Runs one streamed answer that `open` starts, showing it as it arrives; the Stop button aborts it. */
  async #stream(open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>): Promise<void> {
    const controller = new AbortController();
    this.#controller = controller;
    const answer = emptyAnswer();
    try {
      const stream = await open(controller.signal);
      this.#showQuestion();
      this.live = answer;
      this.busy = false;
      // The page's own proxy of the answer, so that each event re-renders what it changed.
      const shown = this.live;
      await readChatStream(stream, (event) => applyStreamEvent(shown, event, performance.now()));
      if (!shown.ended) {
        shown.error ??= 'The answer ended early.';
        shown.errorCode ??= 'stream_ended';
      }
      shown.ended = true;
    } catch (caught) {
      if (caught instanceof NothingRunning) return;
      this.#showQuestion();
      if (controller.signal.aborted) this.#keepStopped();
      else if (this.live) {
        this.live.error = messageOf(caught);
        this.live.errorCode = caught instanceof ApiError ? caught.code : undefined;
      } else this.sendError = messageOf(caught);
      if (this.live) this.live.ended = true;
    } finally {
      this.busy = false;
      this.#controller = undefined;
    }
    await this.#settle();
  }

  #showQuestion(): void {
    const question = this.pendingQuestion;
    if (question === undefined) return;
    this.pendingQuestion = undefined;
    this.messages.push({
      id: `local-question-${this.messages.length}`,
      role: 'user',
      content: question,
      reasoning: null,
      sources: [],
      steps: [],
      usage: null,
      finish_reason: null,
      created_at: timestampNow(),
    });
  }

  #keepStopped(): void {
    if (!this.live) return;
    this.live.finish_reason = 'stopped';
    for (const step of this.live.steps) if (step.state === 'running') step.state = 'error';
  }

  /** The answer has ended: a failed one stays on screen as it is; otherwise the kept chat is shown. */
  async #settle(): Promise<void> {
    const answer = this.live;
    if (!answer) return;
    if (answer.error !== undefined) {
      this.failed = answer;
      this.live = undefined;
      return;
    }
    this.messages.push({ ...answer, id: `local-answer-${this.messages.length}`, role: 'assistant', created_at: timestampNow() });
    this.live = undefined;
    if (answer.finish_reason === 'stopped' || this.chatId === undefined) return;
    // The stored chat brings the title the first answer gave it, and the messages as kept.
    try {
      const chat = await readChat(Number(this.chatId));
      this.#show(chat);
      this.#events.onListChanged();
    } catch {
      // What streamed in stays on screen; a reload shows the stored chat.
    }
  }
}
