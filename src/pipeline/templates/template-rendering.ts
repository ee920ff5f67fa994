/**
 * Renders an assistant's prompt template into the last user message, as LAMB's simple_augment
 * does: the system prompt first, the history, then the template with `{user_input}` and the tools'
 * placeholders filled. Substitution is one pass over known placeholders only, so braces in a
 * template stay as written and text a user or a tool supplies is never substituted again.
 */
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import type { Source } from '../conversation/events.js';
import { isTextPart, messageText, type ChatMessage, type ContentPart } from '../conversation/messages.js';
import type { PromptInput } from '../plugin-contract/prompt-processor-definition.js';

const PLACEHOLDER_PATTERN = /\{([a-z][a-z0-9_]*)\}/g;
export const USER_INPUT_PLACEHOLDER = 'user_input';
export const CONTEXT_PLACEHOLDER = 'context';

/** LAMB's default when a classic assistant retrieves context but has no template, so the context is not dropped. */
export const CLASSIC_DEFAULT_TEMPLATE =
  'Use the following context to answer the question. If the context does not contain the answer, say you do not know.\n\nContext:\n{context}\n\nQuestion: {user_input}';

/** Replaces each known `{name}` with `values[name]` (empty when absent), in a single pass. */
export function substitutePlaceholders(template: string, values: Readonly<Record<string, string>>, known: ReadonlySet<string>): string {
  return template.replace(PLACEHOLDER_PATTERN, (match, name: string) => (known.has(name) ? (values[name] ?? '') : match));
}

/** LAMB's list of sources after the retrieved context. */
export function formatSourceList(sources: readonly Source[]): string {
  if (sources.length === 0) return '';
  // A file has no similarity; printing 0.000 for it would read as "irrelevant".
  const similarity = (source: Source) => (typeof source.similarity === 'number' ? ` (similarity: ${source.similarity.toFixed(3)})` : '');
  const lines = sources.map((source, index) => `${index + 1}. [${source.title}](${source.url ?? ''})${similarity(source)}`);
  return `\n\n## Available Sources\n\n${lines.join('\n')}\n`;
}

/** Non-empty values are framed by blank lines, as LAMB frames them; empty ones vanish. */
function frame(content: string): string {
  return content === '' ? '' : `\n\n${content}\n\n`;
}

export interface TemplateInput {
  assistant: AssistantSnapshot;
  messages: readonly ChatMessage[];
  values: Readonly<Record<string, string>>;
  /** Sources of the tools that wrote `{context}`, listed after it. */
  contextSources: readonly Source[];
  knownPlaceholders: ReadonlySet<string>;
  /** Used when the assistant has no template but tools produced something, so their output is not lost. */
  defaultTemplate: string;
  /**
   * Values substituted exactly as given, without the blank lines that frame tool output: short
   * identifiers that sit inside a sentence, such as moodle_augment's `{moodle_user}`. Their names
   * count as known placeholders; they never make a template-less assistant use the default template.
   */
  inlineValues?: Readonly<Record<string, string>>;
}

function hasVision(assistant: AssistantSnapshot): boolean {
  return assistant.metadata.capabilities?.vision === true;
}

/** Without vision, image parts never reach the model; with it, they follow the text. */
function keepSupportedParts(content: ChatMessage['content'], vision: boolean): ChatMessage['content'] {
  if (!Array.isArray(content) || vision) return content;
  return messageText(content);
}

function renderTemplate(input: TemplateInput, template: string, userText: string): string {
  const values: Record<string, string> = {};
  for (const [name, content] of Object.entries(input.values)) values[name] = frame(content);
  const context = input.values[CONTEXT_PLACEHOLDER] ?? '';
  if (context !== '') values[CONTEXT_PLACEHOLDER] = frame(context + formatSourceList(input.contextSources));
  values[USER_INPUT_PLACEHOLDER] = frame(userText);
  const inline = input.inlineValues ?? {};
  Object.assign(values, inline);
  const known = new Set([...input.knownPlaceholders, ...Object.keys(inline), USER_INPUT_PLACEHOLDER, CONTEXT_PLACEHOLDER]);
  return substitutePlaceholders(template, values, known);
}

export function renderMessages(input: TemplateInput): ChatMessage[] {
  const vision = hasVision(input.assistant);
  const history = input.messages.slice(0, -1).map((message) => ({ ...message, content: keepSupportedParts(message.content, vision) }));
  const last = input.messages.at(-1);
  const system: ChatMessage[] = input.assistant.systemPrompt === '' ? [] : [{ role: 'system', content: input.assistant.systemPrompt }];
  if (!last) return system;
  const toolsProducedSomething = Object.values(input.values).some((value) => value !== '');
  const template =
    input.assistant.promptTemplate !== '' ? input.assistant.promptTemplate : toolsProducedSomething ? input.defaultTemplate : '';
  if (template === '') return [...system, ...history, { ...last, content: keepSupportedParts(last.content, vision) }];
  const text = renderTemplate(input, template, messageText(last.content));
  const otherParts: ContentPart[] = vision && Array.isArray(last.content) ? last.content.filter((part) => !isTextPart(part)) : [];
  const content: ChatMessage['content'] = otherParts.length > 0 ? [{ type: 'text', text }, ...otherParts] : text;
  return [...system, ...history, { ...last, content }];
}

/**
 * LAMB's classic rendering (simple_augment): only `{user_input}` and `{context}` (followed by the
 * context's sources) are filled from the tools; other known placeholders are emptied. A processor
 * that fills placeholders of its own passes them as inline values.
 */
export function renderClassicPrompt(input: PromptInput, inlineValues: Readonly<Record<string, string>> = {}): ChatMessage[] {
  return renderMessages({
    assistant: input.assistant,
    messages: input.messages,
    values: { [CONTEXT_PLACEHOLDER]: input.values[CONTEXT_PLACEHOLDER] ?? '' },
    contextSources: input.sources.filter((source) => source.placeholder === CONTEXT_PLACEHOLDER),
    knownPlaceholders: input.knownPlaceholders,
    defaultTemplate: CLASSIC_DEFAULT_TEMPLATE,
    inlineValues,
  });
}
