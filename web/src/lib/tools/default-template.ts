/**
 * The prompt template a new multi-tool assistant starts with: each placeholder its enabled
 * context tools fill, on a line of its own, then the learner's question. It follows the tools as
 * they are added, removed or switched off, for as long as the teacher has not edited it (the
 * template still reads exactly as it was last written here); after that it is theirs.
 */

/** The template for these filled placeholders (each once, in tool order), ending with `{user_input}`. */
export function defaultTemplate(filledPlaceholders: readonly string[]): string {
  const contexts = [...new Set(filledPlaceholders)].filter((name) => name !== 'user_input');
  if (contexts.length === 0) return '';
  return [...contexts.map((name) => `{${name}}`), '{user_input}'].join('\n\n');
}

/** Whether the template may still be rewritten for the tools: blank, or as this module last wrote it. */
export function followsTools(template: string, lastWritten: string | undefined): boolean {
  return template.trim() === '' || template === lastWritten;
}
