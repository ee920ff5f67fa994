/**
 * Context-aware retrieval queries (LAMB issue #140): the organization's small fast model reads
 * the last turns of the conversation and writes the one standalone search query they amount to,
 * so "and what about its causes?" searches for the causes of what was being discussed. Any
 * failure, timeout or empty answer yields undefined and the caller falls back to the last message.
 * What the provider reports the call used goes to `onUsage`, so the call is counted even when its
 * answer is not used.
 */
import { trimCharacters } from '../../text-trimming/trim-characters.js';
import type { ConnectorDefinition, ProviderSettings } from '../plugin-contract/connector-definition.js';
import { messageText, type ChatMessage } from '../conversation/messages.js';
import type { Usage } from '../conversation/events.js';

/** How many of the latest user and assistant messages the model sees. */
export const REWRITE_MESSAGES_MAXIMUM = 6;
/** Each message is cut to this many characters, so a long paste cannot blow the small model's context. */
export const REWRITE_MESSAGE_CHARACTERS_MAXIMUM = 1_500;
/** A longer answer is not a query: it is cut to this length. */
export const REWRITTEN_QUERY_CHARACTERS_MAXIMUM = 500;
const REWRITE_TOKENS_MAXIMUM = 120;

const INSTRUCTIONS =
  'You write search queries for a course knowledge base. Read the conversation and write ONE standalone search query ' +
  "that captures what the learner's last message is asking about, resolving pronouns and references from the earlier messages. " +
  'Answer with the query only: no quotes, no explanation.';

export interface SmallFastModel {
  connector: ConnectorDefinition;
  model: string;
  provider: ProviderSettings;
}

function transcript(messages: readonly ChatMessage[]): string {
  return messages
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .slice(-REWRITE_MESSAGES_MAXIMUM)
    .map(
      (message) =>
        `${message.role === 'user' ? 'Learner' : 'Assistant'}: ${messageText(message.content).slice(0, REWRITE_MESSAGE_CHARACTERS_MAXIMUM)}`,
    )
    .join('\n\n');
}

function cleanQuery(answer: string): string | undefined {
  const prefixless = answer.trim().replace(/^(?:search query|query)\s*:\s*/i, '');
  const query = trimCharacters(prefixless, '"\'`').trim().slice(0, REWRITTEN_QUERY_CHARACTERS_MAXIMUM);
  return query === '' ? undefined : query;
}

export interface RewriteOptions {
  timeoutMilliseconds: number;
  /** Told what the call used, when the provider says. */
  onUsage?: (usage: Usage) => void;
}

export async function rewriteQuery(
  model: SmallFastModel,
  messages: readonly ChatMessage[],
  signal: AbortSignal,
  options: RewriteOptions,
): Promise<string | undefined> {
  const { timeoutMilliseconds, onUsage } = options;
  const conversation = transcript(messages);
  if (conversation === '') return undefined;
  let answer = '';
  try {
    const events = model.connector.complete({
      model: model.model,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: conversation },
      ],
      parameters: { temperature: 0, max_tokens: REWRITE_TOKENS_MAXIMUM },
      provider: model.provider,
      // The connector bounds the call by timeoutMilliseconds itself.
      signal,
      timeoutMilliseconds,
    });
    for await (const event of events) {
      if (event.type === 'text-delta') answer += event.text;
      else if (event.type === 'usage') onUsage?.(event.usage);
    }
  } catch {
    return undefined;
  }
  return cleanQuery(answer);
}
