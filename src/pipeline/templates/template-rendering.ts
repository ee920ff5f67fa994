/**
 * Renders an assistant's prompt template into the last user message, as LAMB's simple_augment
 * does: the system prompt first, the history, then the template with `{user_input}` and the tools'
 * placeholders filled. Substitution is one pass over known placeholders only, so braces in a
 * template stay as written and text a user or a tool supplies is never substituted again.
 */
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import type { Source } from '../conversation/events.js';
import { recordRenderedContent } from '../conversation/message-json.js';
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
  const pieces: Record<string, readonly string[]> = {};
  for (const [name, value] of Object.entries(values)) pieces[name] = [value];
  return substitutedPieces(template, pieces, known).join('');
}

/**
 * The pieces a substitution's text is made of, in order, each value given as its own pieces: what
 * message-json.ts needs to escape a long value once rather than on every request.
 */
function substitutedPieces(template: string, values: Readonly<Record<string, readonly string[]>>, known: ReadonlySet<string>): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const match of template.matchAll(PLACEHOLDER_PATTERN)) {
    const name = match[1]!;
    if (!known.has(name)) continue;
    pieces.push(template.slice(from, match.index), ...(values[name] ?? []));
    from = match.index + match[0].length;
  }
  pieces.push(template.slice(from));
  return pieces.filter((piece) => piece !== '');
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
function frame(content: string): string[] {
  return content === '' ? [] : ['\n\n', content, '\n\n'];
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

/** The rendered template's pieces (message-json.ts): its own text, and each value framed. */
function renderTemplate(input: TemplateInput, template: string, userText: string): string[] {
  const values: Record<string, readonly string[]> = {};
  for (const [name, content] of Object.entries(input.values)) values[name] = frame(content);
  const context = input.values[CONTEXT_PLACEHOLDER] ?? '';
  if (context !== '') values[CONTEXT_PLACEHOLDER] = frame(context + formatSourceList(input.contextSources));
  values[USER_INPUT_PLACEHOLDER] = frame(userText);
  const inline = input.inlineValues ?? {};
  for (const [name, value] of Object.entries(inline)) values[name] = [value];
  const known = new Set([...input.knownPlaceholders, ...Object.keys(inline), USER_INPUT_PLACEHOLDER, CONTEXT_PLACEHOLDER]);
  return substitutedPieces(template, values, known);
}

export function renderMessages(input: TemplateInput): ChatMessage[] {
  const vision = hasVision(input.assistant);
  const history = input.messages.slice(0, -1).map((message) => ({ ...message, content: keepSupportedParts(message.content, vision) }));
  const last = input.messages.at(-1);
  const system: ChatMessage[] = input.assistant.systemPrompt === '' ? [] : [{ role: 'system', content: input.assistant.systemPrompt }];
  // A long system prompt is one piece, kept escaped like a template's text (message-json.ts).
  for (const message of system) recordRenderedContent(message, [input.assistant.systemPrompt], '');
  if (!last) return system;
  const toolsProducedSomething = Object.values(input.values).some((value) => value !== '');
  const template =
    input.assistant.promptTemplate !== '' ? input.assistant.promptTemplate : toolsProducedSomething ? input.defaultTemplate : '';
  if (template === '') return [...system, ...history, { ...last, content: keepSupportedParts(last.content, vision) }];
  const userText = messageText(last.content);
  const pieces = renderTemplate(input, template, userText);
  // Added up rather than joined: V8 then keeps the pieces as they are until something reads the
  // characters, which a provider request written by messageJson never does (it writes the pieces).
  let text = '';
  for (const piece of pieces) text += piece;
  const otherParts: ContentPart[] = vision && Array.isArray(last.content) ? last.content.filter((part) => !isTextPart(part)) : [];
  const rendered: ChatMessage = { ...last, content: otherParts.length > 0 ? [{ type: 'text', text }, ...otherParts] : text };
  recordRenderedContent(rendered, pieces, userText);
  return [...system, ...history, rendered];
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
