/**
 * Chats as the API answers with them (/api/chats): a conversation kept for its owner, its
 * messages with the tool steps, sources and reasoning the answer came with.
 */
import type { paths } from './generated/openapi';
import type { JsonAnswer } from './json-answer';

type StoredChat = paths['/api/chats/{id}']['get']['responses'][200]['content']['application/json'];
type StoredMessage = StoredChat['messages'][number];

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

/** A source as the server sends it: its schema (src/validation/shape-fragments.ts) does not promise a title. */
type SentSource = StoredMessage['sources'][number];

/**
 * Where part of an answer came from, as the server's source schema declares it
 * (src/validation/shape-fragments.ts, sourceSchema); every source shown has a title: the stream's
 * reader and a stored chat's reading both drop any without one (a plugin may send one).
 */
export type Source = SentSource & { title: string };

export function isTitledSource(source: unknown): source is Source {
  return typeof source === 'object' && source !== null && typeof (source as Record<string, unknown>)['title'] === 'string';
}

/** The tokens an answer used, as the connector reported them; connectors may report more counts. */
export type Usage = NonNullable<StoredMessage['usage']>;

export interface ChatMessage {
  id: number | string;
  role: 'user' | 'assistant';
  content: string;
  reasoning: string | null;
  sources: Source[];
  steps: Step[];
  usage: Usage | null;
  /** 'stopped' when the reader pressed Stop before the answer was complete; 'interrupted' when the server writing it stopped. */
  finish_reason: string | null;
  created_at: string;
  /** Every version of this message, itself included, oldest first; absent on a message not yet kept. */
  version_ids?: number[];
  /** The owner's rating of a kept answer. */
  feedback?: Feedback | null;
}

/** The owner's thumb up or down on an answer, with an optional comment. */
export type Feedback = NonNullable<StoredMessage['feedback']>;

/** A kept conversation, as the list of chats answers it. */
export type Chat = JsonAnswer<'/api/chats', 'get'>['items'][number];

export interface ChatWithMessages extends Chat {
  messages: ChatMessage[];
}

export type ChatPage = JsonAnswer<'/api/chats', 'get'>;
