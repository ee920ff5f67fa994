/**
 * What a web page read from its URL is stored as: its readable text under its title as a heading,
 * in a Markdown document named after the title, and the SHA-256 of that text, by which a refresh
 * tells a changed page from an unchanged one. Shared by a page added by URL, a crawl and a refresh,
 * so the three store a page alike and a refresh compares like with like.
 */
import { createHash } from 'node:crypto';
import type { ReadablePage } from '../../integrations/web-reading/readable-page.js';
import { trimCharacters } from '../../text-trimming/trim-characters.js';

/** A page title as a file name: letters, digits and single dashes, bounded. */
const FILE_NAME_CHARACTERS_MAXIMUM = 80;

/** `extension` is `md` for a page's text, or a transcript's format (`vtt`, `srt`). */
export function webPageFileName(title: string, url: URL, extension = 'md'): string {
  const dashed = (title || url.host).normalize('NFKD').replace(/[^\p{L}\p{N}]+/gu, '-');
  const words = trimCharacters(dashed, '-').slice(0, FILE_NAME_CHARACTERS_MAXIMUM);
  return `${words || 'web-page'}.${extension}`;
}

/** The document's text: the page's title as a heading, then its readable text. */
export function webPageText(page: Pick<ReadablePage, 'title' | 'text'>): string {
  return page.title === '' ? page.text : `# ${page.title}\n\n${page.text}`;
}

/** The hash stored as `content_hash`: SHA-256 of the UTF-8 text, in hex. */
export function contentHashOf(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}
