/**
 * A video's transcript read from the web for a knowledge base: a YouTube video's published captions
 * (youtube-captions.ts), a caption file's own address (…/lecture.vtt), or the caption track a web
 * page offers for its video (`<video><track>` or a link to a .vtt or .srt file). Every track is
 * fetched under the web page bounds and the site's robots.txt, and must look like a caption file
 * before it is stored: its cues are parsed by the ingestion job, off the event loop, which names
 * any damage. The transcript remembers the address its passages link to at their moment: YouTube's
 * watch address, the video file a page plays, or else the page (or the caption file) itself.
 */
import { captionFormatOf } from '../document-reading/captions.js';
import { AppError } from '../errors/app-error.js';
import { fetchBoundedText, type FetchBounds, type FetchedKind, type FetchedText } from '../integrations/web-reading/bounded-fetch.js';
import { captionTrackLinks, chosenTrackLink } from '../integrations/web-reading/caption-track-links.js';
import { readableText } from '../integrations/web-reading/readable-page.js';
import { checkRobotsRules } from '../integrations/web-reading/robots-rules.js';
import { readYoutubeCaptions, youtubeVideoId } from '../integrations/web-reading/youtube-captions.js';

export interface Transcript {
  /** Where its passages link to, with the moment added (`&t=…s`, `#t=…`). */
  sourceUrl: string;
  title: string;
  /** The captions' language code, when known. */
  language: string | null;
  format: 'vtt' | 'srt';
  text: string;
}

export interface TranscriptReading {
  bounds: FetchBounds;
  /** YOUTUBE_BASE_URL. */
  youtubeBaseUrl: string;
}

const CAPTION_TRACK: FetchedKind = {
  noun: 'the caption track',
  // Servers send .srt files under many names; the content is checked below whatever the type says.
  types: new Set(['text/vtt', 'text/plain', 'application/x-subrip', 'text/srt', 'application/srt', 'application/octet-stream']),
  expected: 'a caption track (WebVTT or SubRip)',
  accept: 'text/vtt,application/x-subrip,text/plain;q=0.8',
};

function captionFormatChecked(fetched: { url: URL; text: string }): 'vtt' | 'srt' {
  const format = captionFormatOf(fetched.text);
  if (format === undefined)
    throw new AppError(
      'unreadable_document',
      `${fetched.url.host} sent a caption track that is neither WebVTT nor SubRip: it has no cue time line such as "00:00:01.000 --> 00:00:04.000".`,
      { param: 'url', details: { reason: 'not_captions' } },
    );
  return format;
}

/** The captions of a YouTube video, in the language asked for or its preferred track. */
export async function youtubeTranscript(url: URL, language: string | undefined, reading: TranscriptReading): Promise<Transcript> {
  const videoId = youtubeVideoId(url);
  if (videoId === undefined)
    throw new AppError(
      'unreadable_document',
      "This YouTube address names no video: give the video's own address, such as https://www.youtube.com/watch?v=… or https://youtu.be/….",
      { param: 'url' },
    );
  const captions = await readYoutubeCaptions(videoId, { baseUrl: reading.youtubeBaseUrl, language, bounds: reading.bounds });
  const automatic = captions.track.automatic ? ', automatic' : '';
  return {
    sourceUrl: captions.watchUrl,
    title: `${captions.title} (captions: ${captions.track.languageName}${automatic})`,
    language: captions.track.languageCode,
    format: captionFormatChecked({ url: new URL(reading.youtubeBaseUrl), text: captions.vtt }),
    text: captions.vtt,
  };
}

async function fetchedTrack(
  trackUrl: string,
  page: URL,
  reading: TranscriptReading,
): Promise<{ fetched: FetchedText; format: 'vtt' | 'srt' }> {
  // The page's own site has had its robots.txt read already.
  if (new URL(trackUrl).origin !== page.origin)
    await checkRobotsRules(new URL(trackUrl), {
      fetch: reading.bounds.fetch,
      timeoutMilliseconds: reading.bounds.timeoutMilliseconds,
      signal: reading.bounds.signal,
    });
  const fetched = await fetchBoundedText(trackUrl, reading.bounds, CAPTION_TRACK);
  return { fetched, format: captionFormatChecked(fetched) };
}

/** A caption file given by its own address (its robots.txt already checked). */
export async function captionFileTranscript(url: URL, reading: TranscriptReading): Promise<Transcript> {
  const fetched = await fetchBoundedText(url.toString(), reading.bounds, CAPTION_TRACK);
  const fileName = decodeURIComponent(fetched.url.pathname.split('/').pop() ?? '').replace(/\.(vtt|srt)$/i, '');
  return {
    sourceUrl: fetched.url.toString(),
    title: fileName || fetched.url.host,
    language: null,
    format: captionFormatChecked(fetched),
    text: fetched.text,
  };
}

/** The transcript of the video a fetched page offers captions for; undefined when it offers none. */
export async function pageTranscript(
  page: FetchedText,
  language: string | undefined,
  reading: TranscriptReading,
): Promise<Transcript | undefined> {
  if (page.type === 'text/plain') return undefined;
  const links = await captionTrackLinks(page.text, page.url.toString());
  if (links.length === 0) return undefined;
  const link = chosenTrackLink(links, language);
  const { fetched, format } = await fetchedTrack(link.url, page.url, reading);
  return {
    sourceUrl: link.videoUrl ?? page.url.toString(),
    title: (await readableText(page.text)).title || page.url.host,
    language: link.language,
    format,
    text: fetched.text,
  };
}
