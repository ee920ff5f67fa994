/**
 * Trimming runs of chosen characters from the ends of a text, or from the end of each of its
 * lines, in one pass. The obvious regular expressions (`/[ .]+$/`, `/^_+|_+$/g`, `/[ \t]+$/gm`)
 * backtrack quadratically: at every start inside a long run that is not at the end they scan the
 * whole run again, so `x` + 100,000 dots + `x` held the event loop for seconds. These loops look at
 * each character at most twice, whatever the text. A library of its own that imports nothing of
 * Merino, so document reading (which imports nothing else of Merino) and everything above it
 * share one copy.
 */

/** Line terminators as a multiline `$` sees them. */
const LINE_TERMINATORS = '\n\r\u2028\u2029';

/** Where `text.slice(floor, from)` ends once the characters of `characters` are dropped from its end. */
function endWithout(text: string, characters: string, from: number = text.length, floor = 0): number {
  let end = from;
  while (end > floor && characters.includes(text[end - 1]!)) end -= 1;
  return end;
}

/** `text` without any of the characters of `characters` at its end. */
export function trimCharactersEnd(text: string, characters: string): string {
  return text.slice(0, endWithout(text, characters));
}

/** `text` without any of the characters of `characters` at its start. */
export function trimCharactersStart(text: string, characters: string): string {
  let start = 0;
  while (start < text.length && characters.includes(text[start]!)) start += 1;
  return text.slice(start);
}

/** `text` without any of the characters of `characters` at either end. */
export function trimCharacters(text: string, characters: string): string {
  return trimCharactersEnd(trimCharactersStart(text, characters), characters);
}

/**
 * `text` with the characters of `characters` dropped from the end of every line, lines ending at
 * `\n`, `\r`, U+2028 or U+2029 (what `text.replace(/[…]+$/gm, '')` did, in linear time).
 */
export function trimCharactersAtLineEnds(text: string, characters: string): string {
  const parts: string[] = [];
  let lineStart = 0;
  for (let index = 0; index <= text.length; index += 1) {
    if (index < text.length && !LINE_TERMINATORS.includes(text[index]!)) continue;
    parts.push(text.slice(lineStart, endWithout(text, characters, index, lineStart)));
    if (index < text.length) parts.push(text[index]!);
    lineStart = index + 1;
  }
  return parts.join('');
}
