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
import { parseHTML as parseUntypedHtml } from 'linkedom';
import { AppError } from '../../errors/app-error.js';
import { outboundRefusalIn, startDeadline, type OutboundFetch } from '../../pipeline/plugin-api.js';
import { readBoundedText } from '../integration-request.js';
import { pageLinks } from './page-links.js';

export interface PageReadingBounds {
  /** The outbound guard's fetch: connections only to public addresses. */
  fetch: OutboundFetch;
  /** WEB_PAGE_MAX_BYTES. */
  bytesMaximum: number;
  /** WEB_PAGE_TIMEOUT_MS: every redirect and the whole body. */
  timeoutMilliseconds: number;
  /** WEB_PAGE_REDIRECTS_MAX. */
  redirectsMaximum: number;
  /** The caller's signal: the tool call's timeout or the learner leaving. */
  signal: AbortSignal;
}

export interface ReadablePage {
  /** Where the page was read, after redirects. */
  url: string;
  title: string;
  /** The readable text, paragraphs separated by blank lines; not yet cut to any length. */
  text: string;
  /** The pages it links to (page-links.ts), normalised; none for plain text. */
  links: string[];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
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

/** The page as a person names it: its host only. */
function pageName(url: URL): string {
  return url.host;
}

function parsedUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('invalid_parameter', 'The page address is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('upstream_refused', `Refused: ${url.protocol.replace(':', '')} addresses are not read, only http and https.`);
  return url;
}

interface NodeLike {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<NodeLike>;
}

interface ParsedDocument extends NodeLike {
  title: string;
}

/** linkedom's parser, typed by the little used of it: its own types lean on the DOM library this server is not compiled with. */
const parseHtml = parseUntypedHtml as unknown as (html: string) => { document: ParsedDocument };

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
export function readableText(html: string): { title: string; text: string } {
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

function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Follows redirects by hand: each hop is counted and its URL checked, and the guarded fetch checks where it connects. */
async function fetchFollowingRedirects(
  start: URL,
  bounds: PageReadingBounds,
  signal: AbortSignal,
): Promise<{ response: Response; url: URL }> {
  let url = start;
  for (let redirects = 0; ; redirects += 1) {
    const response = await bounds.fetch(url, {
      method: 'GET',
      redirect: 'manual',
      signal,
      headers: { accept: 'text/html,application/xhtml+xml,text/plain;q=0.8', 'user-agent': 'Merino web reader' },
    });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, url };
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= bounds.redirectsMaximum)
      throw new AppError(
        'upstream_error',
        `${pageName(start)} redirected more than ${bounds.redirectsMaximum} times (WEB_PAGE_REDIRECTS_MAX); the page was not read.`,
      );
    url = parsedUrl(new URL(location, url).toString());
  }
}

async function decodedBody(response: Response, url: URL, bounds: PageReadingBounds): Promise<{ text: string; type: string }> {
  const type = mediaTypeOf(response);
  if (!HTML_TYPES.has(type) && type !== 'text/plain') {
    await response.body?.cancel().catch(() => undefined);
    throw new AppError(
      'unreadable_document',
      `${pageName(url)} sent ${type === '' ? 'no content type' : type}, not a web page (HTML or text).`,
    );
  }
  const declaredLength = Number(response.headers.get('content-length') ?? '0');
  const tooLarge = (): AppError =>
    new AppError(
      'upstream_error',
      `${pageName(url)} is larger than WEB_PAGE_MAX_BYTES (${bounds.bytesMaximum} bytes); the page was not read.`,
    );
  if (declaredLength > bounds.bytesMaximum) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  // Read as UTF-8, which nearly every page is; a page in another charset reads with a few odd letters.
  return { text: await readBoundedText(response, bounds.bytesMaximum, tooLarge), type };
}

function failureOf(error: unknown, url: URL, bounds: PageReadingBounds, deadlineExpired: boolean): AppError {
  if (deadlineExpired)
    return new AppError(
      'upstream_timeout',
      `${pageName(url)} did not send the page within ${bounds.timeoutMilliseconds} ms (WEB_PAGE_TIMEOUT_MS).`,
    );
  if (bounds.signal.aborted) {
    const reason: unknown = bounds.signal.reason;
    return reason instanceof AppError
      ? reason
      : new AppError('upstream_timeout', `The tool call ended before ${pageName(url)} sent the page.`);
  }
  const refusal = outboundRefusalIn(error);
  if (refusal !== undefined) {
    const host = (refusal.details as { host?: unknown } | undefined)?.host;
    return new AppError(
      'upstream_refused',
      `Refused: ${typeof host === 'string' ? host : pageName(url)} is a private or internal address.`,
    );
  }
  if (error instanceof AppError) return error;
  // fetch's own errors can quote the URL, and with it a token: none of their text is kept.
  return new AppError('upstream_error', `${pageName(url)} could not be reached.`);
}

/** Fetches the page at `address` under the bounds and returns its readable text, or fails saying why. */
export async function readReadablePage(address: string, bounds: PageReadingBounds): Promise<ReadablePage> {
  const start = parsedUrl(address);
  const deadline = startDeadline(Math.max(1, bounds.timeoutMilliseconds), bounds.signal);
  let body: { text: string; type: string };
  let url = start;
  try {
    const fetched = await fetchFollowingRedirects(start, bounds, deadline.signal);
    url = fetched.url;
    if (!fetched.response.ok) {
      await fetched.response.body?.cancel().catch(() => undefined);
      throw new AppError('upstream_error', `${pageName(url)} answered HTTP ${fetched.response.status}; the page was not read.`);
    }
    body = await decodedBody(fetched.response, url, bounds);
  } catch (error) {
    throw failureOf(error, url, bounds, deadline.expired);
  } finally {
    deadline.clear();
  }
  const readable = body.type === 'text/plain' ? { title: '', text: tidy(body.text) } : readableText(body.text);
  if (readable.text.length < READABLE_CHARACTERS_MINIMUM)
    throw new AppError('unreadable_document', `${pageName(url)} has no readable text without JavaScript; the page needs JavaScript.`);
  const links = body.type === 'text/plain' ? [] : pageLinks(body.text, url);
  return { url: url.toString(), title: readable.title || pageName(url), text: readable.text, links };
}
