/**
 * Markdown split into sections at its headings (ATX `#` and setext underlines, never inside
 * fenced code or front matter). Each section keeps its heading line in its text, so a chunk
 * read alone still says what it is about, and carries the path of headings above it
 * (`Course > Week 1 > Reading`). A heading directly followed by a deeper heading adds nothing
 * but its title, which is already in its children's path, so it makes no section of its own.
 */

export interface TextSection {
  text: string;
  /** 1-based page number, for PDFs. */
  page?: number;
  /** The path of headings the text sits under, joined with HEADING_PATH_SEPARATOR. */
  heading?: string;
}

export const HEADING_PATH_SEPARATOR = ' > ';

interface RawSection {
  level: number;
  path: string[];
  headingLine?: string;
  body: string[];
}

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
/** Lines that cannot be the text of a setext heading: list items, quotes, indented code, tables, other headings. */
const NOT_SETEXT_TEXT = /^(?: {4}|\t| {0,3}(?:[-+*>#|]|\d{1,9}[.)])(?:\s|$))/;

/** The heading text of an ATX line, without the optional closing `#`s; undefined when the line is no heading. */
function atxHeading(line: string): { level: number; text: string } | undefined {
  const match = ATX_HEADING.exec(line);
  if (match === null) return undefined;
  const text = (match[2] ?? '').replace(/(?:^|[ \t]+)#+$/, '').trim();
  return text === '' ? undefined : { level: match[1]!.length, text };
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
      const closing = new RegExp(`^ {0,3}${fence.character === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
      if (closing.test(line)) fence = undefined;
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
    sections.push({ text: body === '' ? section.headingLine : `${section.headingLine}\n\n${body}`, heading: section.path.join(HEADING_PATH_SEPARATOR) });
  });
  return sections;
}
