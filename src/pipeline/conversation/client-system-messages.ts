/**
 * A client's `system` and `developer` messages never displace the assistant's system prompt
 * (DESIGN §9): a learner who writes one ("ignore your instructions…") must not become the
 * teacher. They are taken out of the conversation before any tool or prompt processor sees it;
 * by default they are dropped, and an assistant that wants them (`metadata.client_system_messages:
 * "append"`) gets them after the teacher's system prompt, never before or in place of it.
 */
import type { ChatMessage } from './messages.js';

export const CLIENT_SYSTEM_MESSAGE_HANDLINGS = ['drop', 'append'] as const;
export type ClientSystemMessageHandling = (typeof CLIENT_SYSTEM_MESSAGE_HANDLINGS)[number];
export const DEFAULT_CLIENT_SYSTEM_MESSAGE_HANDLING: ClientSystemMessageHandling = 'drop';

/** What a trace notes about them: how many and what was done, never their text. */
export interface ClientSystemMessagesNote {
  count: number;
  handling: 'dropped' | 'appended';
}

export interface SeparatedMessages {
  /** The conversation without the client's system and developer messages. */
  conversation: ChatMessage[];
  clientSystem: ChatMessage[];
}

function isClientSystem(message: ChatMessage): boolean {
  return message.role === 'system' || message.role === 'developer';
}

export function separateClientSystemMessages(messages: readonly ChatMessage[]): SeparatedMessages {
  return { conversation: messages.filter((message) => !isClientSystem(message)), clientSystem: messages.filter(isClientSystem) };
}

/** An unknown stored value falls back to the safe default rather than to appending. */
export function clientSystemMessageHandlingOf(setting: unknown): ClientSystemMessageHandling {
  return setting === 'append' ? 'append' : DEFAULT_CLIENT_SYSTEM_MESSAGE_HANDLING;
}

/**
 * The prompt the model receives: the processor's messages, with the client's system messages
 * (as `system`, which every provider knows) after its leading system messages when appending.
 */
export function withClientSystemMessages(
  prompt: readonly ChatMessage[],
  clientSystem: readonly ChatMessage[],
  handling: ClientSystemMessageHandling,
): ChatMessage[] {
  if (handling === 'drop' || clientSystem.length === 0) return [...prompt];
  let leading = 0;
  while (leading < prompt.length && prompt[leading]!.role === 'system') leading += 1;
  const appended = clientSystem.map((message): ChatMessage => ({ role: 'system', content: message.content }));
  return [...prompt.slice(0, leading), ...appended, ...prompt.slice(leading)];
}

export function clientSystemMessagesNote(
  clientSystem: readonly ChatMessage[],
  handling: ClientSystemMessageHandling,
): ClientSystemMessagesNote | undefined {
  if (clientSystem.length === 0) return undefined;
  return { count: clientSystem.length, handling: handling === 'append' ? 'appended' : 'dropped' };
}
