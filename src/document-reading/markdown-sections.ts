/**
 * Markdown split into sections at its headings (ATX `#` and setext underlines, never inside
 * fenced code or front matter). Each section keeps its heading line in its text, so a chunk
 * read alone still says what it is about, and carries the path of headings above it
 * (`Course > Week 1 > Reading`). A heading directly followed by a deeper heading adds nothing
 * but its title, which is already in its children's path, so it makes no section of its own.
 *
 * Lines are read with plain index arithmetic, not regular expressions with nested or adjacent
 * quantifiers, so a line of 100,000 spaces or `#`s costs time in proportion to its length.
 */
import { trimCharacters, trimCharactersEnd } from '../text-trimming/trim-characters.js';

export interface TextSection {
  text: string;
  /** 1-based page number, for PDFs. */
  page?: number;
  /** The path of headings the text sits under, joined with HEADING_PATH_SEPARATOR. */
  heading?: string;
  /** For captions: the second of the video its first words are spoken at. */
  startSeconds?: number;
}

export const HEADING_PATH_SEPARATOR = ' > ';

interface RawSection {
  level: number;
  path: string[];
  headingLine?: string;
  body: string[];
}

const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
/** Lines that cannot be the text of a setext heading: list items, quotes, indented code, tables, other headings. */
const NOT_SETEXT_TEXT = /^(?: {4}|\t| {0,3}(?:[-+*>#|]|\d{1,9}[.)])(?:\s|$))/;

/** Spaces and tabs, the only white space inside an ATX heading line. */
const LINE_SPACE = ' \t';
/** Characters that end a line for `.` and `$`; a heading line holding one is no heading. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * The heading text of an ATX line, without the optional closing `#`s; undefined when the line is
 * no heading. Read with index arithmetic rather than /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/,
 * whose lazy text and trailing spaces backtrack cubically over `# x` and a long run of spaces.
 */
function atxHeading(line: string): { level: number; text: string } | undefined {
  let position = 0;
  while (position < 3 && line[position] === ' ') position += 1;
  const hashesStart = position;
  while (line[position] === '#') position += 1;
  const level = position - hashesStart;
  if (level < 1 || level > 6) return undefined;
  if (position < line.length && !LINE_SPACE.includes(line[position]!)) return undefined;
  if (LINE_TERMINATOR.test(line)) return undefined;
  let text = trimCharacters(line.slice(position), LINE_SPACE);
  // The optional closing sequence: the `#`s that end the text, when they are all of it or follow a space.
  const beforeClosing = trimCharactersEnd(text, '#');
  if (beforeClosing === '') text = '';
  else if (beforeClosing.length < text.length && LINE_SPACE.includes(beforeClosing[beforeClosing.length - 1]!))
    text = trimCharactersEnd(beforeClosing, LINE_SPACE);
  text = text.trim();
  return text === '' ? undefined : { level, text };
}

/** Whether `line` closes a fence opened with `fence.length` of `fence.character`: as many or more of them, then only spaces or tabs. */
function closesFence(line: string, fence: { character: string; length: number }): boolean {
  let position = 0;
  while (position < 3 && line[position] === ' ') position += 1;
  const runBegin = position;
  while (line[position] === fence.character) position += 1;
  if (position - runBegin < fence.length) return false;
  while (position < line.length && LINE_SPACE.includes(line[position]!)) position += 1;
  return position === line.length;
}

/** The number of front-matter lines (`---` … `---`) at the start, 0 when there is none. */
function frontMatterLength(lines: readonly string[]): number {
  if (lines[0]?.trimEnd() !== '---') return 0;
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index]!.trimEnd();
    if (line === '---' || line === '...') return index + 1;
  }
  return 0;
}

function isBlank(line: string | undefined): boolean {
  return line === undefined || line.trim() === '';
}

/** Sections of a Markdown text; the text before the first heading is a section without heading. */
export function splitMarkdownSections(markdown: string): TextSection[] {
  const lines = markdown.split('\n');
  const raw: RawSection[] = [];
  let current: RawSection = { level: 0, path: [], body: [] };
  const stack: Array<{ level: number; text: string }> = [];

  const startSection = (level: number, text: string): void => {
    raw.push(current);
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, text });
    current = { level, path: stack.map((entry) => entry.text), headingLine: `${'#'.repeat(level)} ${text}`, body: [] };
  };

  const frontMatter = frontMatterLength(lines);
  current.body.push(...lines.slice(0, frontMatter));
  let fence: { character: string; length: number } | undefined;

  for (let index = frontMatter; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (fence !== undefined) {
      current.body.push(line);
      if (closesFence(line, fence)) fence = undefined;
      continue;
    }
    const fenceOpen = FENCE_OPEN.exec(line);
    if (fenceOpen !== null) {
      fence = { character: fenceOpen[1]![0]!, length: fenceOpen[1]!.length };
      current.body.push(line);
      continue;
    }
    const atx = atxHeading(line);
    if (atx !== undefined) {
      startSection(atx.level, atx.text);
      continue;
    }
    const underline = SETEXT_UNDERLINE.exec(line);
    const previous = current.body[current.body.length - 1];
    if (
      underline !== null &&
      previous !== undefined &&
      !isBlank(previous) &&
      !NOT_SETEXT_TEXT.test(previous) &&
      isBlank(current.body[current.body.length - 2])
    ) {
      current.body.pop();
      startSection(underline[1]![0] === '=' ? 1 : 2, previous.trim());
      continue;
    }
    current.body.push(line);
  }
  raw.push(current);

  const sections: TextSection[] = [];
  raw.forEach((section, index) => {
    const body = section.body.join('\n').trim();
    if (section.headingLine === undefined) {
      if (body !== '') sections.push({ text: body });
      return;
    }
    const next = raw[index + 1];
    if (body === '' && next !== undefined && next.level > section.level) return;
    sections.push({
      text: body === '' ? section.headingLine : `${section.headingLine}\n\n${body}`,
      heading: section.path.join(HEADING_PATH_SEPARATOR),
    });
  });
  return sections;
}
