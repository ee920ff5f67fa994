/**
 * Adds a web page or a video's transcript to a knowledge base by its address. A YouTube address
 * becomes the video's published captions; a caption file's address (.vtt, .srt), or a page that
 * offers a caption track for its video, becomes that transcript; any other page is read under the
 * outbound rules and the site's robots.txt, and its readable text (Mozilla Readability) is stored as
 * a text document that remembers the page's URL. Either is ingested like any other document, so its
 * passages cite and link to the page, or to the moment in the video. Whoever may not change the
 * knowledge base is refused before anything is fetched.
 */
import { AppError } from '../errors/app-error.js';
import type { CallContext } from '../auth/call-context.js';
import { fetchBoundedText, type FetchBounds } from '../integrations/web-reading/bounded-fetch.js';
import { isCaptionFileAddress } from '../integrations/web-reading/caption-track-links.js';
import { readablePageOf, WEB_PAGE_KIND, type ReadablePage } from '../integrations/web-reading/readable-page.js';
import { checkRobotsRules } from '../integrations/web-reading/robots-rules.js';
import { isYoutubeAddress } from '../integrations/web-reading/youtube-captions.js';
import type { KnowledgeDocumentService } from './knowledge-document-service.js';
import type { QueuedWebPage, WebPageBody } from './knowledge-document-schemas.js';
import { captionFileTranscript, pageTranscript, youtubeTranscript, type Transcript } from './video-transcripts.js';
import { webPageFileName, webPageText } from './web-sources/web-page-text.js';

export interface WebPageReading extends Omit<FetchBounds, 'signal'> {
  /** YOUTUBE_BASE_URL: where YouTube's caption list and timed text are read. */
  youtubeBaseUrl: string;
}

type ReadAddress = { kind: 'web_page'; page: ReadablePage } | { kind: 'transcript'; transcript: Transcript };

/** Every reason an address could not be read is the client's to fix (another URL or language), so each is a 4xx naming it. */
export function asRefusal(error: unknown): AppError {
  if (!(error instanceof AppError)) return new AppError('unreadable_document', 'The page could not be read.', { param: 'url' });
  return new AppError(error.status < 500 ? error.code : 'unreadable_document', error.message, {
    param: error.param ?? 'url',
    ...(error.details !== undefined && { details: error.details }),
  });
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
    let read: ReadAddress;
    try {
      read = await this.read(url, body.language);
    } catch (error) {
      throw asRefusal(error);
    }
    if (read.kind === 'web_page') {
      const { page } = read;
      const text = webPageText(page);
      const metadata = { filename: webPageFileName(page.title, new URL(page.url), 'md'), title: page.title, source_url: page.url };
      const queued = (await this.documents.addTexts(context, knowledgeBaseId, [{ text, metadata }])).documents[0]!;
      return { ...queued, url: page.url, title: page.title, kind: 'web_page', language: null };
    }
    const { transcript } = read;
    const metadata = {
      filename: webPageFileName(transcript.title, new URL(transcript.sourceUrl), transcript.format),
      title: transcript.title,
      source_url: transcript.sourceUrl,
      ...(transcript.language !== null && { language: transcript.language }),
    };
    const queued = (await this.documents.addTexts(context, knowledgeBaseId, [{ text: transcript.text, metadata }])).documents[0]!;
    return { ...queued, url: transcript.sourceUrl, title: transcript.title, kind: 'transcript', language: transcript.language };
  }

  /** Reads what the address names: a YouTube video, a caption file, a page offering captions, or a page. */
  private async read(url: URL, language: string | undefined): Promise<ReadAddress> {
    // Nothing cancels a read but its own bounds (WEB_PAGE_TIMEOUT_MS for each request it makes).
    const bounds = { ...this.reading, signal: new AbortController().signal };
    const reading = { bounds, youtubeBaseUrl: this.reading.youtubeBaseUrl };
    // YouTube's caption list is an API the teacher's address asks for, not pages a robot crawls: robots.txt is for the pages.
    if (isYoutubeAddress(url)) return { kind: 'transcript', transcript: await youtubeTranscript(url, language, reading) };
    await checkRobotsRules(url, { fetch: bounds.fetch, timeoutMilliseconds: bounds.timeoutMilliseconds, signal: bounds.signal });
    if (isCaptionFileAddress(url)) return { kind: 'transcript', transcript: await captionFileTranscript(url, reading) };
    const fetched = await fetchBoundedText(url.toString(), bounds, WEB_PAGE_KIND);
    const transcript = await pageTranscript(fetched, language, reading);
    if (transcript !== undefined) return { kind: 'transcript', transcript };
    if (language !== undefined)
      throw new AppError(
        'unreadable_document',
        `${fetched.url.host} offers no captions on this page (no <track> in a <video>, no link to a .vtt or .srt file), so no language can be chosen; send the address without a language to add the page's text.`,
        { param: 'language' },
      );
    return { kind: 'web_page', page: await readablePageOf(fetched) };
  }
}
