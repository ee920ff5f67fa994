/**
 * The caption tracks a web page offers for its video: `<track src kind="captions|subtitles"
 * srclang>` inside a `<video>` (a track without `kind` is subtitles, as HTML says), and links
 * (`<a href>`) to a `.vtt` or `.srt` file. Each comes with its language when the page names one and
 * the address of the video it belongs to, so a transcript's passages can link to the moment in the
 * video itself (`video.mp4#t=125`, which browsers' players follow) rather than to the page.
 */
import { AppError } from '../../errors/app-error.js';
import { htmlParser } from './html-parser.js';

export interface CaptionTrackLink {
  /** The track's address, absolute. */
  url: string;
  /** Its `srclang` (or a link's `hreflang`), lower case; null when the page names none. */
  language: string | null;
  /** The `<video>`'s own address (its `src` or first `<source src>`), absolute; null for a plain link. */
  videoUrl: string | null;
  isDefault: boolean;
}

interface ElementLike {
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): ElementLike | null;
  querySelectorAll(selector: string): ArrayLike<ElementLike>;
}

const CAPTION_KINDS = new Set(['captions', 'subtitles']);
const CAPTION_FILE = /\.(vtt|srt)$/i;

/** Whether an address names a caption file itself (…/lecture.vtt). */
export function isCaptionFileAddress(url: URL): boolean {
  return CAPTION_FILE.test(url.pathname);
}

function absolute(value: string | null, base: string): string | null {
  if (value === null || value.trim() === '') return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

function languageOf(value: string | null): string | null {
  const language = (value ?? '').trim().toLowerCase();
  return language === '' ? null : language;
}

/** Every caption track the page at `pageUrl` offers, `<video>` tracks first, in page order. */
export async function captionTrackLinks(html: string, pageUrl: string): Promise<CaptionTrackLink[]> {
  const { document } = (await htmlParser<ElementLike>())(html);
  const links: CaptionTrackLink[] = [];
  for (const video of Array.from(document.querySelectorAll('video'))) {
    const videoUrl = absolute(video.getAttribute('src') ?? video.querySelector('source[src]')?.getAttribute('src') ?? null, pageUrl);
    for (const track of Array.from(video.querySelectorAll('track[src]'))) {
      if (!CAPTION_KINDS.has((track.getAttribute('kind') ?? 'subtitles').toLowerCase())) continue;
      const url = absolute(track.getAttribute('src'), pageUrl);
      if (url !== null)
        links.push({ url, language: languageOf(track.getAttribute('srclang')), videoUrl, isDefault: track.hasAttribute('default') });
    }
  }
  for (const anchor of Array.from(document.querySelectorAll('a[href]'))) {
    const url = absolute(anchor.getAttribute('href'), pageUrl);
    if (url !== null && isCaptionFileAddress(new URL(url)) && !links.some((link) => link.url === url))
      links.push({ url, language: languageOf(anchor.getAttribute('hreflang')), videoUrl: null, isDefault: false });
  }
  return links;
}

function primaryLanguage(code: string): string {
  return code.split(/[-_]/)[0]!;
}

/** The track in the language asked for, else the page's default, else the first; or a refusal naming the languages. */
export function chosenTrackLink(links: CaptionTrackLink[], language: string | undefined): CaptionTrackLink {
  if (language === undefined) return links.find((link) => link.isDefault) ?? links[0]!;
  const wanted = language.trim().toLowerCase();
  const found =
    links.find((link) => link.language === wanted) ??
    links.find((link) => link.language !== null && primaryLanguage(link.language) === primaryLanguage(wanted));
  if (found !== undefined) return found;
  const named = [...new Set(links.map((link) => link.language ?? 'unnamed'))].join(', ');
  throw new AppError('unreadable_document', `No captions in this language (${language}); the page has captions in ${named}.`, {
    param: 'language',
    details: { reason: 'no_captions_in_language', available: links.flatMap((link) => (link.language === null ? [] : [link.language])) },
  });
}
