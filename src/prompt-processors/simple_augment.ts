/**
 * simple_augment — LAMB's classic prompt processor: the system prompt, the history, and the
 * template with `{user_input}` and `{context}` (followed by its "Available Sources") filled.
 */
import { definePromptProcessor } from '../pipeline/prompt-processor-definition.js';
import { CONTEXT_PLACEHOLDER, renderMessages } from '../pipeline/template-rendering.js';

/** LAMB's default when an assistant retrieves context but has no template, so the context is not dropped. */
const DEFAULT_TEMPLATE =
  'Use the following context to answer the question. If the context does not contain the answer, say you do not know.\n\nContext:\n{context}\n\nQuestion: {user_input}';

export default definePromptProcessor({
  name: 'simple_augment',
  description: 'System prompt, history, and the template with {user_input} and {context} filled (LAMB classic).',
  process: (input) =>
    renderMessages({
      assistant: input.assistant,
      messages: input.messages,
      values: { [CONTEXT_PLACEHOLDER]: input.values[CONTEXT_PLACEHOLDER] ?? '' },
      contextSources: input.sources.filter((source) => source.placeholder === CONTEXT_PLACEHOLDER),
      knownPlaceholders: input.knownPlaceholders,
      defaultTemplate: DEFAULT_TEMPLATE,
    }),
});
