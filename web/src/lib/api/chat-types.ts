/**
 * Chats as the API answers with them (/api/chats): a conversation kept for its owner, its
 * messages with the tool steps, sources and reasoning the answer came with.
 */
import type { Sent } from './client';
import type { paths } from './generated/openapi';
import type { JsonAnswer } from './json-answer';

type StoredChat = paths['/api/chats/{id}']['get']['responses'][200]['content']['application/json'];
type StoredMessage = NonNullable<StoredChat['messages']>[number];

export type StepState = 'running' | 'done' | 'error';

/** One tool step of an answer: a context tool, a function call or an assistant called as a tool. */
export interface Step {
  id: string;
  tool: string;
  display_name?: string | null;
  state: StepState;
  duration_ms?: number | null;
  /** The step this one is nested under (a called assistant's own steps). */
  parent?: string | null;
}

/**
 * Where part of an answer came from, as the server's source schema declares it (src/http/schemas.ts,
 * sourceSchema); every source has a title (the stream's reader drops any without one).
 */
export type Source = NonNullable<StoredMessage['sources']>[number] & { title: string };

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatMessage {
  id: number | string;
  role: 'user' | 'assistant';
  content: string;
  reasoning: string | null;
  sources: Source[];
  steps: Step[];
  usage: Usage | null;
  /** 'stopped' when the reader pressed Stop before the answer was complete. */
  finish_reason: string | null;
  created_at: string;
}

/** A kept conversation, as the list of chats answers it. */
export type Chat = Sent<JsonAnswer<'/api/chats', 'get'>['items'][number]>;

export interface ChatWithMessages extends Chat {
  messages: ChatMessage[];
}

export type ChatPage = Sent<JsonAnswer<'/api/chats', 'get'>>;
