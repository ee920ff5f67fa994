/**
 * Follows the links of a web page that stay on its site (same origin: scheme, host and port), to
 * a bounded depth and number of pages, reading each page under the outbound rules and the site's
 * robots.txt (read once). Addresses are normalised and their fragments dropped, so a page is read
 * once however it is linked (loops included). A page that redirects off the site is never fetched
 * there: the fetch given to the reader refuses any other origin. Each page read or failed is handed
 * to the caller as it ends; a failure never stops the others.
 */
import { AppError } from '../../errors/app-error.js';
import type { OutboundFetch } from '../../pipeline/plugin-api.js';
import { normalisedLink } from '../../integrations/web-reading/page-links.js';
import { readReadablePage, type PageReadingBounds, type ReadablePage } from '../../integrations/web-reading/readable-page.js';
import type { RobotsRules } from '../../integrations/web-reading/robots-rules.js';

export interface CrawlBounds {
  /** Links of the first page are at depth 1, their links at 2, and so on. */
  depth: number;
  /** Pages read or failed, the first included. */
  pagesMaximum: number;
  /** WEB_CRAWL_PAGES_IN_FLIGHT. */
  pagesInFlight: number;
}

export interface SiteCrawl {
  start: URL;
  reading: Omit<PageReadingBounds, 'signal'>;
  bounds: CrawlBounds;
  robots: RobotsRules;
  signal: AbortSignal;
  /** Called for each page read; a rejection counts the page as failed with its reason. */
  onPage: (page: ReadablePage) => Promise<void>;
  onFailure: (url: string, error: unknown) => Promise<void>;
  /** Called when the count of distinct pages found (read, queued or skipped for the bound) grows. */
  onFound: (count: number) => void;
}

/** A fetch that refuses every origin but the site's, so a redirect off the site is skipped, not followed. */
function sameSiteFetch(fetch: OutboundFetch, site: URL): OutboundFetch {
  return (url, init) => {
    const target = new URL(url instanceof Request ? url.url : url);
    if (target.origin !== site.origin)
      return Promise.reject(
        new AppError('unreadable_document', `${site.host} sent this page off the site, to ${target.host}; it was skipped.`),
      );
    return fetch(url, init);
  };
}

/** Crawls the site from `start`; resolves when every page within the bounds has been read or has failed. */
export async function crawlSite(crawl: SiteCrawl): Promise<void> {
  const { start, bounds, signal } = crawl;
  const reading = { ...crawl.reading, fetch: sameSiteFetch(crawl.reading.fetch, start), signal };
  const first = normalisedLink(start.toString(), start)!;
  const seen = new Set<string>([first]);
  const queue: Array<{ url: string; depth: number }> = [{ url: first, depth: 0 }];
  let started = 0;
  let active = 0;

  const enqueueLinks = (page: ReadablePage, depth: number): void => {
    if (depth >= bounds.depth) return;
    seen.add(normalisedLink(page.url, page.url) ?? page.url);
    for (const link of page.links) {
      if (new URL(link).origin !== start.origin || seen.has(link)) continue;
      seen.add(link);
      queue.push({ url: link, depth: depth + 1 });
    }
    crawl.onFound(Math.min(seen.size, bounds.pagesMaximum));
  };

  const visit = async (url: string, depth: number): Promise<void> => {
    let page: ReadablePage;
    try {
      crawl.robots(new URL(url));
      page = await readReadablePage(url, reading);
    } catch (error) {
      await crawl.onFailure(url, error);
      return;
    }
    enqueueLinks(page, depth);
    await crawl.onPage(page).catch((error: unknown) => crawl.onFailure(url, error));
  };

  await new Promise<void>((resolve) => {
    const pump = (): void => {
      while (active < bounds.pagesInFlight && queue.length > 0 && started < bounds.pagesMaximum && !signal.aborted) {
        const next = queue.shift()!;
        started += 1;
        active += 1;
        void visit(next.url, next.depth)
          .catch(() => undefined)
          .finally(() => {
            active -= 1;
            pump();
          });
      }
      if (active === 0) resolve();
    };
    pump();
  });
}
