/**
 * Chat messages as the OpenAI chat format carries them, which every connector speaks or
 * translates, and the one place a client's messages are brought into that shape.
 */

export interface TextPart {
  type: 'text';
  text: string;
}

/** Images and any other non-text part are kept as sent, for assistants with vision. */
export interface OtherPart {
  type: string;
  [key: string]: unknown;
}

export type ContentPart = TextPart | OtherPart;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content: string | ContentPart[] | null;
  name?: string;
  tool_call_id?: string;
  tool_calls?: unknown[];
}

/** A message as a client may send it: OpenAI's API lets `content` be left out (an assistant turn with only `tool_calls`). */
export type IncomingChatMessage = Omit<ChatMessage, 'content'> & { content?: ChatMessage['content'] };

/** A missing `content` means `null`, as in OpenAI's API; nothing after this has to ask. */
export function normalizeMessages(messages: readonly IncomingChatMessage[]): ChatMessage[] {
  return messages.map((message) => ({ ...message, content: message.content ?? null }));
}

export function isTextPart(part: ContentPart): part is TextPart {
  return part.type === 'text' && typeof (part as TextPart).text === 'string';
}

/** The text of a message, its text parts joined by spaces as LAMB does. */
export function messageText(content: ChatMessage['content'] | undefined): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter(isTextPart)
    .map((part) => part.text)
    .join(' ');
}

export function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role === 'user') return messageText(message.content);
  }
  return '';
}
