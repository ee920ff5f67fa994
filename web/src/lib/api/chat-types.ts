/**
 * Chats as the API answers with them (/api/chats): a conversation kept for its owner, its
 * messages with the tool steps, sources and reasoning the answer came with.
 */
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

/** Where part of an answer came from (src/pipeline/events.ts); only these fields are shown. */
export interface Source {
  title: string;
  url?: string;
  page?: number;
  section?: string;
  tool?: string;
  placeholder?: string;
  document_id?: string;
  chunk_index?: number;
  similarity?: number;
  excerpt?: string;
  [key: string]: unknown;
}

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

export interface Chat {
  id: number | string;
  assistant_id: number;
  assistant_name: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface ChatWithMessages extends Chat {
  messages: ChatMessage[];
}

export interface ChatPage {
  items: Chat[];
  total: number;
}
