/**
 * The links of a web page, for following them (a crawl of same-site links, web-site-crawl.ts):
 * every `<a href>` of the page resolved against its address, http and https only, each with its
 * fragment dropped (a fragment names a place in the same page, never another page). Bounded, so a
 * page of a million links costs no more than its first few hundred.
 */
import { htmlParser } from './html-parser.js';

/** Links past these on one page are ignored. */
export const PAGE_LINKS_MAXIMUM = 500;

interface LinkElement {
  getAttribute(name: string): string | null;
}

interface LinkDocument {
  querySelectorAll(selector: string): ArrayLike<LinkElement>;
}

/** The address a link names, normalised (fragment dropped), or undefined when it names no web page. */
export function normalisedLink(href: string, base: URL | string): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url.toString();
}

/** The distinct page addresses an HTML page links to, in the order they appear. */
export async function pageLinks(html: string, base: URL | string): Promise<string[]> {
  const anchors = (await htmlParser<LinkDocument>())(html).document.querySelectorAll('a[href]');
  const links = new Set<string>();
  for (let index = 0; index < anchors.length && links.size < PAGE_LINKS_MAXIMUM; index += 1) {
    const link = normalisedLink(anchors[index]!.getAttribute('href') ?? '', base);
    if (link !== undefined) links.add(link);
  }
  return [...links];
}
