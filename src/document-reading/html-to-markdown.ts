/**
 * HTML to readable Markdown for indexing: headings become `#` lines, lists `-`/`1.` items
 * (nested by indentation), block quotes `>` lines, tables pipe rows, `<pre>` fenced blocks, and
 * everything else plain paragraphs with whitespace collapsed and entities decoded. Scripts,
 * styles, forms' controls, navigation and hidden elements are dropped, and so are a page's
 * header, footer and asides when it marks its content with `<main>` or `<article>`. Inline
 * formatting and link targets are dropped: the text is for search and prompts.
 *
 * The tree comes from html-tree.ts (htmlparser2, depth-bounded); this file holds only Merino's
 * rules for rendering it.
 */
import { isTag, isText, type ChildNode, type Element, type ParentNode } from 'domhandler';
import { parseHtmlTree } from './html-tree.js';

/** Never content. */
const DROPPED_ELEMENTS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'title',
  'meta',
  'link',
  'nav',
  'svg',
  'math',
  'canvas',
  'iframe',
  'object',
  'embed',
  'video',
  'audio',
  'map',
  'button',
  'select',
  'option',
  'datalist',
  'textarea',
  'input',
  'img',
  'picture',
  'noembed',
  'noframes',
  'xmp',
  'dialog',
]);
/** Page furniture, dropped when the page marks its content with `<main>` or `<article>`. */
const FURNITURE_ELEMENTS = new Set(['header', 'footer', 'aside']);
const CONTENT_ROOTS = new Set(['main', 'article']);
const DROPPED_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'complementary']);
const HEADINGS: Readonly<Record<string, number>> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const BLOCK_ELEMENTS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'caption',
  'ul',
  'tr',
  'td',
  'th',
  'thead',
  'tbody',
  'tfoot',
]);
/** Lines of Markdown being built, with the paragraph in progress. */
class LineWriter {
  readonly lines: string[] = [];
  private inline = '';

  text(text: string): void {
    this.inline += text;
  }

  lineBreak(): void {
    this.inline += '\n';
  }

  /** Ends the paragraph in progress, if any, as its own block. */
  endParagraph(): void {
    const paragraphLines = this.inline
      .split('\n')
      .map((line) => line.replace(/[ \t\f\r]+/g, ' ').trim())
      .filter((line) => line !== '')
      // Paragraph text that would read as a Markdown heading is escaped, so it cannot start a section.
      .map((line) => (/^#{1,6}(?:\s|$)/.test(line) ? `\\${line}` : line));
    this.inline = '';
    if (paragraphLines.length === 0) return;
    this.blank();
    this.lines.push(...paragraphLines);
    this.blank();
  }

  /** A blank line, unless there already is one (or nothing yet). */
  blank(): void {
    if (this.lines.length > 0 && this.lines[this.lines.length - 1] !== '') this.lines.push('');
  }

  block(lines: readonly string[], separated = true): void {
    this.endParagraph();
    if (lines.length === 0) return;
    if (separated) this.blank();
    this.lines.push(...lines);
    if (separated) this.blank();
  }

  finish(): string[] {
    this.endParagraph();
    const lines = [...this.lines];
    while (lines.at(-1) === '') lines.pop();
    while (lines[0] === '') lines.shift();
    return lines;
  }
}

interface RenderContext {
  /** Whether the page marks its content with `<main>`/`<article>`, which makes header, footer and aside furniture. */
  hasContentRoot: boolean;
  insideContentRoot: boolean;
}

function isDropped(element: Element, context: RenderContext): boolean {
  if (DROPPED_ELEMENTS.has(element.name)) return true;
  if (Object.hasOwn(element.attribs, 'hidden') || element.attribs['aria-hidden'] === 'true') return true;
  const role = element.attribs.role;
  if (role !== undefined && DROPPED_ROLES.has(role) && !context.insideContentRoot) return true;
  return FURNITURE_ELEMENTS.has(element.name) && context.hasContentRoot && !context.insideContentRoot;
}

function childContext(element: Element, context: RenderContext): RenderContext {
  const isRoot = CONTENT_ROOTS.has(element.name) || element.attribs.role === 'main';
  return isRoot && !context.insideContentRoot ? { ...context, insideContentRoot: true } : context;
}

/** Whitespace as HTML collapses it; non-breaking spaces become plain ones. */
function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ');
}

function renderChildren(element: ParentNode, writer: LineWriter, context: RenderContext): void {
  for (const child of element.children) renderNode(child, writer, context);
}

/** The lines an element's content renders to on its own. */
function renderToLines(element: ParentNode, context: RenderContext): string[] {
  const writer = new LineWriter();
  renderChildren(element, writer, isTag(element) ? childContext(element, context) : context);
  return writer.finish();
}

/** The content as one line: for headings and table cells. */
function renderToLine(element: Element, context: RenderContext): string {
  return renderToLines(element, context)
    .filter((line) => line !== '')
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function preformattedText(node: ChildNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node)) return '';
  if (node.name === 'br') return '\n';
  return node.children.map(preformattedText).join('');
}

function renderList(list: Element, writer: LineWriter, context: RenderContext): void {
  const ordered = list.name === 'ol';
  const startAttribute = Number.parseInt(list.attribs.start ?? '1', 10);
  let number = Number.isFinite(startAttribute) ? startAttribute : 1;
  const lines: string[] = [];
  const loose = new LineWriter();
  for (const child of list.children) {
    if (isTag(child) && child.name === 'li') {
      if (isDropped(child, context)) continue;
      const marker = ordered ? `${number}. ` : '- ';
      number += 1;
      const itemLines = renderToLines(child, context).filter((line) => line !== '');
      if (itemLines.length === 0) continue;
      const indent = ' '.repeat(marker.length);
      itemLines.forEach((line, index) => lines.push(index === 0 ? marker + line : indent + line));
    } else {
      // Text or elements directly inside a list (invalid, but common): kept as their own lines.
      renderNode(child, loose, context);
      lines.push(...loose.finish().filter((line) => line !== ''));
      loose.lines.length = 0;
    }
  }
  writer.block(lines);
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function tableRows(element: Element, rows: Element[]): void {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.name === 'tr') rows.push(child);
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') tableRows(child, rows);
  }
}

function renderTable(table: Element, writer: LineWriter, context: RenderContext): void {
  const rows: Element[] = [];
  tableRows(table, rows);
  const lines: string[] = [];
  const caption = table.children.find((child): child is Element => isTag(child) && child.name === 'caption');
  if (caption !== undefined) writer.block([renderToLine(caption, context)].filter((line) => line !== ''));
  for (const row of rows) {
    const cells = row.children
      .filter((child): child is Element => isTag(child) && (child.name === 'td' || child.name === 'th') && !isDropped(child, context))
      .map((cell) => escapeCell(renderToLine(cell, context)));
    if (cells.every((cell) => cell === '')) continue;
    lines.push(`| ${cells.join(' | ')} |`);
    // Markdown tables need a separator after their first row.
    if (lines.length === 1) lines.push(`|${' --- |'.repeat(cells.length)}`);
  }
  writer.block(lines);
}

function renderNode(node: ChildNode, writer: LineWriter, context: RenderContext): void {
  if (isText(node)) {
    writer.text(collapseWhitespace(node.data));
    return;
  }
  // The tree holds elements and text only; anything else would not be content.
  if (!isTag(node)) return;
  if (isDropped(node, context)) return;
  const name = node.name;
  const level = HEADINGS[name];
  if (level !== undefined) {
    const text = renderToLine(node, context);
    writer.block(text === '' ? [] : [`${'#'.repeat(level)} ${text}`]);
    return;
  }
  switch (name) {
    case 'br':
      writer.lineBreak();
      return;
    case 'hr':
      writer.endParagraph();
      return;
    case 'ul':
    case 'ol':
    case 'menu':
    case 'dir':
      renderList(node, writer, context);
      return;
    case 'li':
      // A list item outside a list: still an item.
      writer.block(
        renderToLines(node, context)
          .filter((line) => line !== '')
          .map((line, index) => (index === 0 ? `- ${line}` : `  ${line}`)),
      );
      return;
    case 'pre': {
      const text = preformattedText(node).replace(/^\n/, '').trimEnd();
      if (text.trim() === '') return;
      const longestFence = Math.max(2, ...Array.from(text.matchAll(/`{3,}/g), (match) => match[0].length));
      const fence = '`'.repeat(longestFence + 1);
      writer.block([fence, ...text.split('\n'), fence]);
      return;
    }
    case 'blockquote':
      writer.block(renderToLines(node, context).map((line) => (line === '' ? '>' : `> ${line}`)));
      return;
    case 'table':
      renderTable(node, writer, context);
      return;
    case 'dt':
    case 'dd':
    case 'td':
    case 'th':
    case 'tr':
      // Outside the structures that handle them: one line each.
      writer.block(
        [renderToLine(node, context)].filter((line) => line !== ''),
        name === 'dt',
      );
      return;
    default:
      // A block only ends the paragraph before it and its own; its content flows into the same writer.
      if (BLOCK_ELEMENTS.has(name)) writer.endParagraph();
      renderChildren(node, writer, childContext(node, context));
      if (BLOCK_ELEMENTS.has(name)) writer.endParagraph();
  }
}

function containsContentRoot(element: ParentNode): boolean {
  return element.children.some(
    (child) => isTag(child) && (CONTENT_ROOTS.has(child.name) || child.attribs.role === 'main' || containsContentRoot(child)),
  );
}

/** Readable Markdown from an HTML document or fragment. */
export function htmlToMarkdown(html: string): string {
  const root = parseHtmlTree(html);
  const context: RenderContext = { hasContentRoot: containsContentRoot(root), insideContentRoot: false };
  return renderToLines(root, context).join('\n');
}
