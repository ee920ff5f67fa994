/**
 * The element tree of an HTML document, as htmlparser2 builds it (forgiving, as browsers are:
 * unclosed `<p>` and `<li>` close where the next starts, stray end tags are ignored, scripts and
 * styles are read to their end tag), with two things of Merino's own on top. Nesting deeper than
 * HTML_DEPTH_MAXIMUM is flattened rather than followed, so a hostile document can neither make
 * the renderer recurse without bound nor make the parser search an ever deeper stack of open
 * elements at each end tag. Character references are read by decodeHtmlEntities, whose rules
 * (which references need their semicolon) are the ones Merino has always indexed text with.
 * html-to-markdown.ts renders the tree.
 */
import { DomHandler, type Document } from 'domhandler';
import { decodeHTMLStrict, replaceCodePoint } from 'entities/decode';
import { Parser } from 'htmlparser2';

/** Deeper elements are kept as empty children of the element at this depth, their content beside them. */
export const HTML_DEPTH_MAXIMUM = 200;

/** Names browsers also accept without the closing semicolon; others are left as written without it. */
const LEGACY_WITHOUT_SEMICOLON = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp', 'copy', 'reg']);
const REFERENCE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}))(;?)/g;

/** A numeric reference, with the HTML rules for invalid code points (NUL, surrogates and past U+10FFFF give U+FFFD; 128–159 are Windows-1252). */
function numericReference(codePoint: number): string {
  return String.fromCodePoint(replaceCodePoint(codePoint));
}

/**
 * `text` with its character references decoded from the HTML table (entities' own). Numeric
 * references are read with or without their semicolon; named ones need it, except the few
 * legacy names browsers read without; unknown names are left as written, never read as a
 * known name followed by letters (`&notaname;` stays as it is).
 */
export function decodeHtmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    REFERENCE,
    // eslint-disable-next-line max-params -- String.replace hands each capture group over as an argument of its own.
    (match, decimal: string | undefined, hex: string | undefined, name: string | undefined, semicolon: string) => {
      if (decimal !== undefined) return numericReference(Number.parseInt(decimal, 10));
      if (hex !== undefined) return numericReference(Number.parseInt(hex, 16));
      if (semicolon === '' && !LEGACY_WITHOUT_SEMICOLON.has(name!)) return match;
      const reference = `&${name!};`;
      const decoded = decodeHTMLStrict(reference);
      return decoded === reference ? match : decoded;
    },
  );
}

/** domhandler's tree builder, keeping elements and decoded text only (comments and declarations are not content). */
class DecodingTreeHandler extends DomHandler {
  /** How many elements are open, which is how deep the next one would be. */
  get openDepth(): number {
    return this.tagStack.length - 1;
  }

  override onopentag(name: string, attributes: Record<string, string>): void {
    const decoded: Record<string, string> = {};
    for (const [attributeName, value] of Object.entries(attributes)) decoded[attributeName] = decodeHtmlEntities(value);
    super.onopentag(name, decoded);
  }

  override ontext(data: string): void {
    super.ontext(decodeHtmlEntities(data));
  }

  override oncomment(): void {
    // Not content; left out so the text either side stays one text node.
  }

  override oncommentend(): void {
    // See oncomment.
  }

  override onprocessinginstruction(): void {
    // A doctype or `<?xml …?>`: not content.
  }
}

/**
 * htmlparser2's parser with the depth bound: an element opened when HTML_DEPTH_MAXIMUM elements
 * are already open is taken as a void element (closed at once), so neither the parser's stack of
 * open elements nor the tree grows deeper. htmlparser2 asks `isVoidElement` while it opens a tag,
 * again when it ends the start tag, and when it reads an end tag; the first answer is remembered
 * for the second, and end tags get the plain answer so they still close what is open.
 */
class DepthBoundedParser extends Parser {
  private openingTag = false;
  private readingEndTag = false;
  private lastOpened: { name: string; asVoid: boolean } | undefined;

  constructor(private readonly handler: DecodingTreeHandler) {
    super(handler, { decodeEntities: false, recognizeSelfClosing: true });
  }

  override onopentagname(start: number, endIndex: number): void {
    this.openingTag = true;
    try {
      super.onopentagname(start, endIndex);
    } finally {
      this.openingTag = false;
    }
  }

  override onclosetag(start: number, endIndex: number): void {
    this.readingEndTag = true;
    try {
      super.onclosetag(start, endIndex);
    } finally {
      this.readingEndTag = false;
    }
  }

  protected override isVoidElement(name: string): boolean {
    const isVoid = super.isVoidElement(name);
    if (this.readingEndTag) return isVoid;
    if (this.openingTag) {
      const asVoid = isVoid || this.handler.openDepth >= HTML_DEPTH_MAXIMUM;
      this.lastOpened = { name, asVoid };
      return asVoid;
    }
    if (this.lastOpened?.name !== name) return isVoid;
    const { asVoid } = this.lastOpened;
    this.lastOpened = undefined;
    return asVoid;
  }
}

/** The tree of an HTML document or fragment, at most HTML_DEPTH_MAXIMUM elements deep. */
export function parseHtmlTree(html: string): Document {
  const handler = new DecodingTreeHandler();
  new DepthBoundedParser(handler).end(html);
  return handler.root;
}
