/**
 * Whether a site's robots.txt lets Merino read a page, before a page is added to a knowledge base.
 * The rules are parsed by `robots-parser` (the widely used implementation of RFC 9309); this file
 * only fetches robots.txt under the outbound rules and decides what a missing or failing file means,
 * as RFC 9309 §2.3.1 does: an unavailable file (4xx) allows everything, an unreachable one (5xx, no
 * answer in time) allows nothing.
 */
import robotsParserModule from 'robots-parser';
import { AppError } from '../../errors/app-error.js';
import { outboundRefusalIn, startDeadline, type OutboundFetch } from '../../pipeline/plugin-api.js';
import { readBoundedText } from '../integration-request.js';

// The package is CommonJS whose module.exports is the parser; its types describe it as an ES default export.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** The product token Merino reads pages as; robots.txt groups for it (or for `*`) apply. */
export const WEB_READER_AGENT = 'Merino';

/** RFC 9309 §2.5: crawlers must read at least 500 KiB of a robots.txt; more is ignored. */
const ROBOTS_BYTES_MAXIMUM = 512 * 1024;

export interface RobotsCheck {
  fetch: OutboundFetch;
  timeoutMilliseconds: number;
  signal?: AbortSignal;
}

function refusal(url: URL, reason: string): AppError {
  return new AppError('unreadable_document', `${url.host} ${reason}; the page was not read.`, { param: 'url' });
}

/** Whether a page of the site may be read: rejects (throws) saying why it may not. */
export type RobotsRules = (page: URL) => void;

/**
 * Reads the site's robots.txt once and answers its rules for any page of the site, so a crawl of
 * many pages fetches it once; a site whose robots.txt allows nothing refuses every page.
 */
export async function loadRobotsRules(site: URL, check: RobotsCheck): Promise<RobotsRules> {
  const robotsUrl = new URL('/robots.txt', site);
  const deadline = startDeadline(Math.max(1, check.timeoutMilliseconds), check.signal);
  let text: string;
  try {
    const response = await check.fetch(robotsUrl, {
      method: 'GET',
      redirect: 'follow',
      signal: deadline.signal,
      headers: { accept: 'text/plain', 'user-agent': WEB_READER_AGENT },
    });
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel().catch(() => undefined);
      return () => undefined;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const status = response.status;
      return (page) => {
        throw refusal(page, `answered HTTP ${status} for robots.txt, which means no page may be read`);
      };
    }
    // Past the bound the rest is ignored, as the RFC allows: the rules read so far apply.
    text = await readBoundedText(response, ROBOTS_BYTES_MAXIMUM * 4, () => refusal(site, 'sent a robots.txt far too large'));
    text = text.slice(0, ROBOTS_BYTES_MAXIMUM);
  } catch (error) {
    if (error instanceof AppError && error.code === 'unreadable_document') throw error;
    // A private address is refused for what it is, not as a site failing to send its rules.
    if (outboundRefusalIn(error) !== undefined)
      throw new AppError('upstream_refused', `Refused: ${site.host} is a private or internal address.`);
    return (page) => {
      throw refusal(page, 'did not send its robots.txt, which means no page may be read');
    };
  } finally {
    deadline.clear();
  }
  const rules = robotsParser(robotsUrl.toString(), text);
  return (page) => {
    if (rules.isDisallowed(page.toString(), WEB_READER_AGENT) === true)
      throw refusal(page, 'asks robots not to read this page (robots.txt)');
  };
}

/** Resolves when the page may be read, or rejects saying why it may not. */
export async function checkRobotsRules(page: URL, check: RobotsCheck): Promise<void> {
  const rules = await loadRobotsRules(page, check);
  rules(page);
}
