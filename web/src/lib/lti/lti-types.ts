// What the LTI administration page reads from its forms.

/** The non-empty lines of a text area, trimmed: one origin or deployment id per line. */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
