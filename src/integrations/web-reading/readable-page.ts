/**
 * Reads one web page for the model (the `web_search` tool's read-the-page step, and later a web page
 * added to a knowledge base): fetches it under the outbound rules and extracts its readable text
 * with Mozilla's Readability over a linkedom document, the way Firefox's reader view does.
 *
 * The fetch given is the outbound guard's, so no connection reaches a private or internal address,
 * redirects included; redirects are followed here, one by one, so their number is bounded and each
 * hop's URL is checked (http or https only). The whole read runs under one deadline, the body is
 * read up to a byte bound, and only HTML, XHTML and plain text are read. Every failure is an
 * AppError whose message says why in words a model can repeat ("the page needs JavaScript"),
 * naming the host, never the page's query (it can carry a token) or what the site sent.
 */
import { Readability } from '@mozilla/readability';
import { AppError } from '../../errors/app-error.js';
import { fetchBoundedText, type FetchBounds, type FetchedKind, type FetchedText } from './bounded-fetch.js';
import { htmlParser } from './html-parser.js';
import { pageLinks } from './page-links.js';

export type PageReadingBounds = FetchBounds;

export interface ReadablePage {
  /** Where the page was read, after redirects. */
  url: string;
  title: string;
  /** The readable text, paragraphs separated by blank lines; not yet cut to any length. */
  text: string;
  /** The pages it links to (page-links.ts), normalised; none for plain text. */
  links: string[];
}

/** A web page: HTML, XHTML or plain text. */
export const WEB_PAGE_KIND: FetchedKind = {
  noun: 'the page',
  types: new Set(['text/html', 'application/xhtml+xml', 'text/plain']),
  expected: 'a web page (HTML or text)',
  accept: 'text/html,application/xhtml+xml,text/plain;q=0.8',
};
/** Less readable text than this means the page shows its content with script only. */
const READABLE_CHARACTERS_MINIMUM = 40;
const BLOCK_ELEMENTS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BR',
  'DD',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'TD',
  'TH',
  'TR',
  'UL',
]);
const SKIPPED_ELEMENTS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME']);

interface NodeLike {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<NodeLike>;
}

interface ParsedDocument extends NodeLike {
  title: string;
}

/** The text of an element with a blank line around each block, so paragraphs stay apart. */
function blockText(node: NodeLike, pieces: string[]): void {
  if (node.nodeType === 3) {
    pieces.push(node.textContent ?? '');
    return;
  }
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
  const name = node.nodeName.toUpperCase();
  if (SKIPPED_ELEMENTS.has(name)) return;
  const block = BLOCK_ELEMENTS.has(name);
  if (block) pieces.push('\n\n');
  for (let index = 0; index < node.childNodes.length; index += 1) blockText(node.childNodes[index]!, pieces);
  if (block) pieces.push('\n\n');
}

function tidy(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}

/** The readable text of an HTML page, or of its whole body when Readability finds no article in it. */
export async function readableText(html: string): Promise<{ title: string; text: string }> {
  const parseHtml = await htmlParser<ParsedDocument>();
  const { document } = parseHtml(html);
  const title = (document.title || '').replace(/\s+/g, ' ').trim();
  const article = new Readability(document).parse();
  const pieces: string[] = [];
  if (article?.content != null) blockText(parseHtml(`<html><body>${article.content}</body></html>`).document, pieces);
  let text = tidy(pieces.join(''));
  if (text.length < READABLE_CHARACTERS_MINIMUM) {
    const whole: string[] = [];
    blockText(parseHtml(html).document, whole);
    text = tidy(whole.join(''));
  }
  return { title: (article?.title ?? '').trim() || title, text };
}

/** The readable text of a page already fetched, or a failure saying it needs JavaScript. */
export async function readablePageOf(fetched: FetchedText): Promise<ReadablePage> {
  const readable = fetched.type === 'text/plain' ? { title: '', text: tidy(fetched.text) } : await readableText(fetched.text);
  if (readable.text.length < READABLE_CHARACTERS_MINIMUM)
    throw new AppError('unreadable_document', `${fetched.url.host} has no readable text without JavaScript; the page needs JavaScript.`);
  const links = fetched.type === 'text/plain' ? [] : await pageLinks(fetched.text, fetched.url);
  return { url: fetched.url.toString(), title: readable.title || fetched.url.host, text: readable.text, links };
}

/** Fetches the page at `address` under the bounds and returns its readable text, or fails saying why. */
export async function readReadablePage(address: string, bounds: PageReadingBounds): Promise<ReadablePage> {
  return readablePageOf(await fetchBoundedText(address, bounds, WEB_PAGE_KIND));
}
