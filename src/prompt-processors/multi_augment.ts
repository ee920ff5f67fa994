/**
 * multi_augment — the multi-tool prompt processor: like simple_augment, but every placeholder a
 * tool declares is filled from that tool's output (several tools writing one placeholder are joined).
 */
import { CONTEXT_PLACEHOLDER, definePromptProcessor, renderMessages } from '../pipeline/plugin-api.js';

/** Without a template, each non-empty tool output gets its own section before the question. */
function defaultTemplate(values: Readonly<Record<string, string>>): string {
  const sections = Object.entries(values)
    .filter(([, content]) => content !== '')
    .map(([name]) => `## ${name}\n{${name}}`);
  return `Use the following material to answer.\n\n${sections.join('\n\n')}\n\nQuestion: {user_input}`;
}

export default definePromptProcessor({
  name: 'multi_augment',
  description: 'System prompt, history, and the template with {user_input} and every tool placeholder filled.',
  process: (input) =>
    renderMessages({
      assistant: input.assistant,
      messages: input.messages,
      values: input.values,
      contextSources: input.sources.filter((source) => source.placeholder === CONTEXT_PLACEHOLDER),
      knownPlaceholders: input.knownPlaceholders,
      defaultTemplate: defaultTemplate(input.values),
    }),
});
