/**
 * The chats area of the API (/api/chats): a person's kept conversations, asked and answered as
 * server-sent events, renamed, exported and deleted. Every call goes through the typed client.
 */
import { isTitledSource, type Chat, type ChatPage, type ChatWithMessages, type Feedback } from './chat-types';
import { answerOf, apiClient, saveDownload, streamOf } from './client';
import type { JsonAnswer } from './json-answer';

export type ChatExportFormat = 'json' | 'markdown';

export async function listChats(limit: number): Promise<ChatPage> {
  return answerOf(apiClient.GET('/api/chats', { params: { query: { limit } } }));
}

/** A chat with its messages; a stored source without a title is dropped, as the stream's reader drops it. */
export async function readChat(chatId: number): Promise<ChatWithMessages> {
  return withTitledSources(await answerOf(apiClient.GET('/api/chats/{id}', { params: { path: { id: chatId } } })));
}

/** A stored source without a title is dropped, as the stream's reader drops it. */
function withTitledSources(chat: JsonAnswer<'/api/chats/{id}', 'get'>): ChatWithMessages {
  return { ...chat, messages: chat.messages.map((message) => ({ ...message, sources: message.sources.filter(isTitledSource) })) };
}

export async function startChat(assistantId: number): Promise<Chat> {
  return answerOf(apiClient.POST('/api/chats', { body: { assistant_id: assistantId } }));
}

export async function renameChat(chatId: number, title: string): Promise<void> {
  await answerOf(apiClient.PATCH('/api/chats/{id}', { params: { path: { id: chatId } }, body: { title } }));
}

export async function deleteChat(chatId: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/chats/{id}', { params: { path: { id: chatId } } }));
}

export async function deleteAllChats(): Promise<void> {
  await answerOf(apiClient.DELETE('/api/chats'));
}

export async function downloadChats(format: ChatExportFormat, fallbackName: string): Promise<void> {
  await saveDownload(apiClient.GET('/api/chats/export', { params: { query: { format } }, parseAs: 'blob' }), fallbackName);
}

/** The answer to a new question, streamed; `signal` aborts it (the Stop button). */
export async function streamAnswer(chatId: number, content: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  return streamOf(
    apiClient.POST('/api/chats/{id}/messages', {
      params: { path: { id: chatId } },
      body: { content, stream: true, status_as_content: false },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal,
    }),
  );
}

/** A new answer to the last question, streamed; `signal` aborts it. */
export async function streamRegeneratedAnswer(chatId: number, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  return streamOf(
    apiClient.POST('/api/chats/{id}/regenerate', {
      params: { path: { id: chatId } },
      body: { stream: true, status_as_content: false },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal,
    }),
  );
}

/** An edited question, kept as a new version of `messageId`, and its answer, streamed; `signal` aborts it. */
export async function streamEditedQuestion(
  target: { chatId: number; messageId: number },
  content: string,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  return streamOf(
    apiClient.POST('/api/chats/{id}/messages/{messageId}/versions', {
      params: { path: { id: target.chatId, messageId: target.messageId } },
      body: { content, stream: true, status_as_content: false },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal,
    }),
  );
}

/** Shows the branch through `messageId` (another version); answers with the chat as it now reads. */
export async function showVersion(chatId: number, messageId: number): Promise<ChatWithMessages> {
  return withTitledSources(
    await answerOf(apiClient.PUT('/api/chats/{id}/active-version', { params: { path: { id: chatId } }, body: { message_id: messageId } })),
  );
}

export type AnswerRating = 'up' | 'down';

export async function rateAnswer(
  target: { chatId: number; messageId: number },
  rating: { rating: AnswerRating; comment: string | null },
): Promise<Feedback> {
  return answerOf(
    apiClient.PUT('/api/chats/{id}/messages/{messageId}/feedback', {
      params: { path: { id: target.chatId, messageId: target.messageId } },
      body: rating,
    }),
  );
}

export async function clearRating(target: { chatId: number; messageId: number }): Promise<void> {
  await answerOf(
    apiClient.DELETE('/api/chats/{id}/messages/{messageId}/feedback', {
      params: { path: { id: target.chatId, messageId: target.messageId } },
    }),
  );
}

/**
 * The chat's answer still running, streamed from its first event (after a reload, or from another
 * tab or device); undefined when none runs. `signal` only stops following: the answer goes on.
 */
export async function rejoinAnswer(chatId: number, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
  const body = await answerOf(
    apiClient.GET('/api/chats/{id}/run', {
      params: { path: { id: chatId } },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal,
    }),
  );
  return body ?? undefined;
}

/** Stops the chat's running answer wherever it runs; resolves once its partial answer is kept. */
export async function stopAnswer(chatId: number): Promise<void> {
  await answerOf(apiClient.POST('/api/chats/{id}/run/stop', { params: { path: { id: chatId } } }));
}
