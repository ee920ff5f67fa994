/**
 * A YouTube video's published captions, read the way YouTube's own player lists them, without
 * downloading the video: the timedtext track list (`/api/timedtext?type=list&v=ID`, XML
 * `<transcript_list><track lang_code name kind lang_default/>`), then the chosen track as WebVTT
 * (`/api/timedtext?v=ID&lang=…&name=…&kind=…&fmt=vtt`). The title comes from YouTube's oEmbed
 * answer when it can be had. Every request goes to YOUTUBE_BASE_URL under the web page bounds.
 * Which track: the language asked for (exact, else the same primary language), else the video's
 * default track, else its first; human captions before automatic ones (`kind="asr"`) either way.
 */
import { AppError } from '../../errors/app-error.js';
import { fetchBoundedText, type FetchBounds, type FetchedKind } from './bounded-fetch.js';
import { htmlParser } from './html-parser.js';

export interface CaptionTrack {
  languageCode: string;
  /** The language as YouTube names it ("English"), or the code when it names none. */
  languageName: string;
  /** The track's own name; empty for most. */
  name: string;
  /** Made by speech recognition (`kind="asr"`), not by a person. */
  automatic: boolean;
  isDefault: boolean;
}

export interface YoutubeCaptions {
  /** The canonical watch address, which sources link to with `&t=`. */
  watchUrl: string;
  title: string;
  track: CaptionTrack;
  /** The track as WebVTT, as YouTube sent it. */
  vtt: string;
}

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_HOSTS = new Set(['youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtube-nocookie.com']);
const PATH_FORMS = ['/shorts/', '/embed/', '/live/', '/v/'];

const TRACK_LIST: FetchedKind = {
  noun: 'the caption list',
  types: new Set(['text/xml', 'application/xml']),
  expected: "YouTube's caption list (XML)",
  accept: 'text/xml,application/xml',
};
const TIMED_TEXT: FetchedKind = {
  noun: 'the captions',
  types: new Set(['text/vtt', 'text/plain']),
  expected: 'captions in WebVTT',
  accept: 'text/vtt,text/plain;q=0.8',
};
const OEMBED: FetchedKind = { noun: 'the title', types: new Set(['application/json']), expected: 'JSON', accept: 'application/json' };

/** Whether an address is on YouTube at all (a YouTube address that names no video is refused, not read as a page). */
export function isYoutubeAddress(url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  return host === 'youtu.be' || YOUTUBE_HOSTS.has(host);
}

/** The video id of a watch, youtu.be, shorts, embed or live address; undefined for any other. */
export function youtubeVideoId(url: URL): string | undefined {
  if (!isYoutubeAddress(url)) return undefined;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  let candidate: string | null | undefined;
  if (host === 'youtu.be') candidate = url.pathname.split('/')[1];
  else if (url.pathname === '/watch') candidate = url.searchParams.get('v');
  else {
    const form = PATH_FORMS.find((prefix) => url.pathname.startsWith(prefix));
    candidate = form === undefined ? undefined : url.pathname.slice(form.length).split('/')[0];
  }
  return candidate !== null && candidate !== undefined && VIDEO_ID.test(candidate) ? candidate : undefined;
}

interface TrackElement {
  getAttribute(name: string): string | null;
}
interface TrackListDocument {
  querySelectorAll(selector: string): ArrayLike<TrackElement>;
}

/** The tracks of a `<transcript_list>`; an empty answer (YouTube's for a video without captions) has none. */
export async function captionTracksOf(xml: string): Promise<CaptionTrack[]> {
  const parseMarkup = await htmlParser<TrackListDocument>();
  const elements = Array.from(
    parseMarkup(`<html><body>${xml.replace(/<\?xml[^<>]*\?>/, '')}</body></html>`).document.querySelectorAll('track'),
  );
  return elements.flatMap((element) => {
    const languageCode = (element.getAttribute('lang_code') ?? '').trim();
    if (languageCode === '') return [];
    return [
      {
        languageCode,
        languageName: (element.getAttribute('lang_translated') || element.getAttribute('lang_original') || languageCode).trim(),
        name: element.getAttribute('name') ?? '',
        automatic: element.getAttribute('kind') === 'asr',
        isDefault: element.getAttribute('lang_default') === 'true',
      },
    ];
  });
}

function primaryLanguage(code: string): string {
  return code.toLowerCase().split(/[-_]/)[0]!;
}

/** Human captions first, then the default track, keeping YouTube's order otherwise. */
function byPreference(tracks: CaptionTrack[]): CaptionTrack[] {
  const rank = (track: CaptionTrack): number => (track.automatic ? 2 : 0) + (track.isDefault ? 0 : 1);
  return tracks
    .map((track, index) => ({ track, index }))
    .sort((a, b) => rank(a.track) - rank(b.track) || a.index - b.index)
    .map(({ track }) => track);
}

/** The available languages, as a refusal lists them: "en (English), es (Spanish, automatic)". */
export function languagesListed(tracks: CaptionTrack[]): string {
  return tracks.map((track) => `${track.languageCode} (${track.languageName}${track.automatic ? ', automatic' : ''})`).join(', ');
}

/** The track to read, or a refusal naming the languages there are. */
export function chosenTrack(tracks: CaptionTrack[], language: string | undefined): CaptionTrack {
  if (tracks.length === 0)
    throw new AppError('unreadable_document', 'This video has no captions: its owner published none and YouTube made none automatically.', {
      param: 'url',
      details: { reason: 'no_captions', available: [] },
    });
  if (language === undefined) return byPreference(tracks)[0]!;
  const wanted = language.trim().toLowerCase();
  const exact = tracks.filter((track) => track.languageCode.toLowerCase() === wanted);
  const related = tracks.filter((track) => primaryLanguage(track.languageCode) === primaryLanguage(wanted));
  const found = byPreference(exact.length > 0 ? exact : related)[0];
  if (found !== undefined) return found;
  throw new AppError(
    'unreadable_document',
    `No captions in this language (${language}); the video has captions in ${languagesListed(tracks)}.`,
    {
      param: 'language',
      details: { reason: 'no_captions_in_language', available: tracks.map((track) => track.languageCode) },
    },
  );
}

async function videoTitle(baseUrl: string, watchUrl: string, bounds: FetchBounds): Promise<string | undefined> {
  try {
    const answer = await fetchBoundedText(`${baseUrl}/oembed?format=json&url=${encodeURIComponent(watchUrl)}`, bounds, OEMBED);
    const title: unknown = (JSON.parse(answer.text) as { title?: unknown }).title;
    return typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined;
  } catch {
    // The title is a courtesy: captions without it are still the video's.
    return undefined;
  }
}

/** Reads the chosen caption track of the video as WebVTT, or fails saying why. */
export async function readYoutubeCaptions(
  videoId: string,
  options: { baseUrl: string; language: string | undefined; bounds: FetchBounds },
): Promise<YoutubeCaptions> {
  const { baseUrl, bounds } = options;
  // A video without captions is answered with an empty list (or an empty body), which has no tracks.
  const listed = await fetchBoundedText(`${baseUrl}/api/timedtext?type=list&v=${videoId}`, bounds, TRACK_LIST);
  const track = chosenTrack(await captionTracksOf(listed.text), options.language);
  const query = new URLSearchParams({ v: videoId, lang: track.languageCode, fmt: 'vtt' });
  if (track.name !== '') query.set('name', track.name);
  if (track.automatic) query.set('kind', 'asr');
  const timedText = await fetchBoundedText(`${baseUrl}/api/timedtext?${query.toString()}`, bounds, TIMED_TEXT);
  const watchUrl = `https://www.youtube.com/watch?v=${videoId}`;
  return { watchUrl, title: (await videoTitle(baseUrl, watchUrl, bounds)) ?? `YouTube video ${videoId}`, track, vtt: timedText.text };
}
