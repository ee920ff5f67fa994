/**
 * Adds a web page to a knowledge base by its URL: the page is read under the outbound rules and
 * the site's robots.txt, its readable text (Mozilla Readability) is stored as a text document that
 * remembers the page's URL, and that document is ingested like any other, so its passages cite and
 * link to the page. Whoever may not change the knowledge base is refused before anything is fetched.
 */
import { AppError } from '../errors/app-error.js';
import type { CallContext } from '../auth/call-context.js';
import { readReadablePage, type PageReadingBounds, type ReadablePage } from '../integrations/web-reading/readable-page.js';
import { checkRobotsRules } from '../integrations/web-reading/robots-rules.js';
import type { KnowledgeDocumentService } from './knowledge-document-service.js';
import type { QueuedWebPage, WebPageBody } from './knowledge-document-schemas.js';
import { webPageFileName, webPageText } from './web-sources/web-page-text.js';

export type WebPageReading = Omit<PageReadingBounds, 'signal'>;

/** Every reason a page could not be read is the client's to fix (another URL), so each is a 4xx naming it. */
export function asRefusal(error: unknown): AppError {
  if (!(error instanceof AppError)) return new AppError('unreadable_document', 'The page could not be read.', { param: 'url' });
  return new AppError(error.status < 500 ? error.code : 'unreadable_document', error.message, { param: 'url' });
}

export function parsedPageUrl(value: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Named below, as for any other unusable address.
  }
  throw new AppError('invalid_body', 'url must be an http or https address, such as https://example.org/page.', { param: 'url' });
}

export class WebPageDocuments {
  constructor(
    private readonly documents: KnowledgeDocumentService,
    private readonly reading: WebPageReading,
  ) {}

  async add(context: CallContext, knowledgeBaseId: number, body: WebPageBody): Promise<QueuedWebPage> {
    const url = parsedPageUrl(body.url.trim());
    await this.documents.requireChange(context, knowledgeBaseId);
    // Nothing cancels the read but its own bounds (WEB_PAGE_TIMEOUT_MS for robots.txt and for the page).
    const signal = new AbortController().signal;
    let page: ReadablePage;
    try {
      await checkRobotsRules(url, { fetch: this.reading.fetch, timeoutMilliseconds: this.reading.timeoutMilliseconds, signal });
      page = await readReadablePage(url.toString(), { ...this.reading, signal });
    } catch (error) {
      throw asRefusal(error);
    }
    const text = webPageText(page);
    const { documents } = await this.documents.addTexts(context, knowledgeBaseId, [
      { text, metadata: { filename: webPageFileName(page.title, new URL(page.url)), title: page.title, source_url: page.url } },
    ]);
    const queued = documents[0]!;
    return { ...queued, url: page.url, title: page.title };
  }
}
