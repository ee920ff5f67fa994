/**
 * A forgiving HTML parser, as browsers are: unclosed `<p>`, `<li>`, `<td>` and the like are closed
 * where the next one starts, stray end tags are ignored, raw-text elements (script, style…) are
 * read to their end tag, entities are decoded, and nesting deeper than MAXIMUM_HTML_DEPTH is
 * flattened rather than followed. It builds the tree html-to-markdown.ts renders.
 */
import { decodeHtmlEntities } from './html-entities.js';

/** Deeper elements are kept as children of the element at this depth, so rendering never recurses without bound. */
export const MAXIMUM_HTML_DEPTH = 200;

export interface ElementNode {
  kind: 'element';
  name: string;
  attributes: ReadonlyMap<string, string>;
  children: HtmlNode[];
}

export interface TextNode {
  kind: 'text';
  text: string;
}

export type HtmlNode = ElementNode | TextNode;

const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Elements whose content is raw text up to their end tag. */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
/** Opening one of these closes an open `<p>`, as in browsers. */
const CLOSES_PARAGRAPH = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
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
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'ul',
  'li',
  'dd',
  'dt',
]);
/** `<p>` is not closed across these (HTML's "button scope"). */
const PARAGRAPH_SCOPE_LIMITS = new Set(['table', 'td', 'th', 'caption', 'template', 'button', 'object']);

/** Opening a heading closes an open heading, as in browsers. */
const HEADING_END: ImpliedEnd = { closes: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'], stopAt: ['body', 'div', 'section', 'article', 'td', 'li'] };
const TABLE_SECTION_END: ImpliedEnd = { closes: ['thead', 'tbody', 'tfoot', 'tr', 'td', 'th'], stopAt: ['table'] };

interface ImpliedEnd {
  /** The open elements the new one closes… */
  closes: readonly string[];
  /** …unless one of these is met first, searching up from the current element. */
  stopAt: readonly string[];
}

/** Elements that close an earlier sibling of their kind when they start. */
const IMPLIED_END_TAGS: Readonly<Record<string, ImpliedEnd>> = {
  li: { closes: ['li'], stopAt: ['ul', 'ol', 'menu', 'dir', 'table'] },
  dt: { closes: ['dt', 'dd'], stopAt: ['dl', 'table'] },
  dd: { closes: ['dt', 'dd'], stopAt: ['dl', 'table'] },
  tr: { closes: ['tr', 'td', 'th'], stopAt: ['table', 'thead', 'tbody', 'tfoot'] },
  td: { closes: ['td', 'th'], stopAt: ['tr', 'table'] },
  th: { closes: ['td', 'th'], stopAt: ['tr', 'table'] },
  thead: TABLE_SECTION_END,
  tbody: TABLE_SECTION_END,
  tfoot: TABLE_SECTION_END,
  option: { closes: ['option'], stopAt: ['select', 'datalist'] },
  h1: HEADING_END,
  h2: HEADING_END,
  h3: HEADING_END,
  h4: HEADING_END,
  h5: HEADING_END,
  h6: HEADING_END,
};

const TAG_NAME = /[A-Za-z][A-Za-z0-9:-]*/y;
const ATTRIBUTE = /[\s/]*([^\s/>"'=][^\s/>=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/y;

class TreeBuilder {
  readonly root: ElementNode = { kind: 'element', name: '#root', attributes: new Map(), children: [] };
  private readonly stack: ElementNode[] = [this.root];

  private get current(): ElementNode {
    return this.stack[this.stack.length - 1]!;
  }

  text(text: string): void {
    if (text === '') return;
    const last = this.current.children.at(-1);
    if (last?.kind === 'text') last.text += text;
    else this.current.children.push({ kind: 'text', text });
  }

  open(name: string, attributes: ReadonlyMap<string, string>, selfClosing: boolean): void {
    if (CLOSES_PARAGRAPH.has(name)) this.closeWithin(['p'], PARAGRAPH_SCOPE_LIMITS);
    const implied = IMPLIED_END_TAGS[name];
    if (implied !== undefined) this.closeWithin(implied.closes, new Set(implied.stopAt));
    const element: ElementNode = { kind: 'element', name, attributes, children: [] };
    this.current.children.push(element);
    if (!selfClosing && !VOID_ELEMENTS.has(name) && this.stack.length <= MAXIMUM_HTML_DEPTH) this.stack.push(element);
  }

  close(name: string): void {
    if (name === 'br') return this.open('br', new Map(), true);
    for (let index = this.stack.length - 1; index > 0; index -= 1) {
      if (this.stack[index]!.name === name) {
        this.stack.length = index;
        return;
      }
    }
  }

  /** Closes the nearest open element named in `names`, unless one named in `limits` comes first. */
  private closeWithin(names: readonly string[], limits: ReadonlySet<string>): void {
    for (let index = this.stack.length - 1; index > 0; index -= 1) {
      const name = this.stack[index]!.name;
      if (names.includes(name)) {
        this.stack.length = index;
        return;
      }
      if (limits.has(name)) return;
    }
  }
}

function parseAttributes(html: string, start: number): { attributes: Map<string, string>; end: number; selfClosing: boolean } {
  const attributes = new Map<string, string>();
  let position = start;
  for (;;) {
    ATTRIBUTE.lastIndex = position;
    const match = ATTRIBUTE.exec(html);
    if (match === null || match[0] === '') break;
    const name = match[1]!.toLowerCase();
    if (!attributes.has(name)) attributes.set(name, decodeHtmlEntities(match[2] ?? match[3] ?? match[4] ?? ''));
    position = ATTRIBUTE.lastIndex;
  }
  const close = html.indexOf('>', position);
  if (close === -1) return { attributes, end: html.length, selfClosing: false };
  const selfClosing = /\/\s*$/.test(html.slice(position, close));
  return { attributes, end: close + 1, selfClosing };
}

/** Builds the element tree of an HTML document or fragment. */
export function parseHtml(html: string): ElementNode {
  const builder = new TreeBuilder();
  let position = 0;
  while (position < html.length) {
    const lt = html.indexOf('<', position);
    if (lt === -1) {
      builder.text(decodeHtmlEntities(html.slice(position)));
      break;
    }
    builder.text(decodeHtmlEntities(html.slice(position, lt)));
    position = lt;
    if (html.startsWith('<!--', position)) {
      const end = html.indexOf('-->', position + 4);
      position = end === -1 ? html.length : end + 3;
    } else if (html.startsWith('<!', position) || html.startsWith('<?', position)) {
      const end = html.indexOf('>', position + 2);
      position = end === -1 ? html.length : end + 1;
    } else if (html[position + 1] === '/' && /[A-Za-z]/.test(html[position + 2] ?? '')) {
      TAG_NAME.lastIndex = position + 2;
      const name = TAG_NAME.exec(html)![0].toLowerCase();
      const end = html.indexOf('>', TAG_NAME.lastIndex);
      position = end === -1 ? html.length : end + 1;
      builder.close(name);
    } else if (/[A-Za-z]/.test(html[position + 1] ?? '')) {
      TAG_NAME.lastIndex = position + 1;
      const name = TAG_NAME.exec(html)![0].toLowerCase();
      const { attributes, end, selfClosing } = parseAttributes(html, TAG_NAME.lastIndex);
      position = end;
      if (RAW_TEXT_ELEMENTS.has(name) && !selfClosing) {
        const closing = new RegExp(`</${name}(?=[\\s/>])`, 'ig');
        closing.lastIndex = position;
        const found = closing.exec(html);
        const contentEnd = found === null ? html.length : found.index;
        builder.open(name, attributes, false);
        builder.text(
          name === 'textarea' || name === 'title' ? decodeHtmlEntities(html.slice(position, contentEnd)) : html.slice(position, contentEnd),
        );
        builder.close(name);
        const after = found === null ? -1 : html.indexOf('>', contentEnd);
        position = after === -1 ? html.length : after + 1;
      } else {
        builder.open(name, attributes, selfClosing);
      }
    } else {
      builder.text('<');
      position += 1;
    }
  }
  return builder.root;
}
