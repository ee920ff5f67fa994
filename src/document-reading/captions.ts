/**
 * Caption files (WebVTT and SubRip) as text sections that remember when they are spoken. Cues are
 * parsed by the `subtitle` library, stripped of their markup (voice tags, styling, inline
 * timestamps), and grouped into sections of about CAPTION_SECTION_CHARACTERS and at most
 * CAPTION_SECTION_SECONDS of video, so that a chunk rarely spans two sections and its start time is
 * close to the moment each of its words is said. Each
 * section's text starts with its time (`[12:05]`), so a model quoting a passage can name the moment.
 */
import { createRequire } from 'node:module';
import type * as Subtitle from 'subtitle';
import { DocumentReadingError } from './document-reading-error.js';
import type { TextSection } from './markdown-sections.js';

type NodeCue = Subtitle.NodeCue;
// Named `require` so that tools that trace dependencies (knip) see the module it loads.
const require = createRequire(import.meta.url);
/** `subtitle` (about 45 ms of CPU to load) only once a caption file is read, not in every worker thread that starts. */
const subtitle = (): typeof Subtitle => require('subtitle') as typeof Subtitle;

/** About how much speech one section holds: under the default chunk size, so a chunk keeps one start time. */
export const CAPTION_SECTION_CHARACTERS = 600;
/** The longest stretch of the video one section covers, so its link lands near every word in it. */
export const CAPTION_SECTION_SECONDS = 60;
const MILLISECONDS_PER_SECOND = 1000;
/**
 * VTT markup inside a cue: tags such as <v Ana>, <b>, <c.yellow>, and inline timestamps <00:00:01.500>.
 * A tag holds no `<`, so a run of `<` is scanned once (with `[^>]` it was scanned again from each).
 */
const CUE_MARKUP = /<[^<>]*>/g;
/** The few character references VTT cues use; anything else stays as written. */
const CHARACTER_REFERENCES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&nbsp;': ' ', '&lrm;': '', '&rlm;': '' };

function cueText(raw: string): string {
  return raw
    .replace(CUE_MARKUP, '')
    .replace(/&(?:amp|lt|gt|nbsp|lrm|rlm);/g, (reference) => CHARACTER_REFERENCES[reference] ?? reference)
    .replace(/\s+/g, ' ')
    .trim();
}

/** A time as people read it in a transcript: 1:02:05 past an hour, 12:05 under one. */
export function spokenTime(totalSeconds: number): string {
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = Math.floor(totalSeconds % 60);
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return hours > 0 ? `${hours}:${twoDigits(minutes)}:${twoDigits(seconds)}` : `${minutes}:${twoDigits(seconds)}`;
}

function parsedCues(text: string): NodeCue['data'][] {
  try {
    return subtitle()
      .parseSync(text)
      .flatMap((node) => (node.type === 'cue' ? [node.data] : []));
  } catch (error) {
    throw new DocumentReadingError(
      'unreadable_document',
      'The caption file could not be read: each cue needs a time line such as "00:00:01.000 --> 00:00:04.000" followed by its text. Export the captions again as WebVTT (.vtt) or SubRip (.srt) and upload the new file.',
      { param: 'file', details: { reason: 'damaged' }, cause: error },
    );
  }
}

/** The sections of a caption file, in the order spoken, each with the second its first cue starts. */
export function captionSections(text: string): TextSection[] {
  const sections: TextSection[] = [];
  let pending: { startSeconds: number; lines: string[]; characters: number } | undefined;
  const flush = (): void => {
    if (pending === undefined) return;
    sections.push({ text: `[${spokenTime(pending.startSeconds)}] ${pending.lines.join(' ')}`, startSeconds: pending.startSeconds });
    pending = undefined;
  };
  for (const cue of parsedCues(text)) {
    const line = cueText(cue.text);
    if (line === '') continue;
    const startSeconds = Math.max(0, Math.floor(cue.start / MILLISECONDS_PER_SECOND));
    if (pending !== undefined && startSeconds - pending.startSeconds > CAPTION_SECTION_SECONDS) flush();
    pending ??= { startSeconds, lines: [], characters: 0 };
    pending.lines.push(line);
    pending.characters += line.length + 1;
    if (pending.characters >= CAPTION_SECTION_CHARACTERS) flush();
  }
  flush();
  return sections;
}

/**
 * The address of a moment in a video: YouTube's own `t=` parameter for YouTube links, and a media
 * fragment (`#t=125`, which browsers' video players follow) for any other address without a fragment.
 */
export function momentUrl(sourceUrl: string, startSeconds: number): string {
  let url: URL;
  try {
    url = new URL(sourceUrl);
  } catch {
    return sourceUrl;
  }
  const host = url.hostname.replace(/^www\.|^m\./, '');
  if (host === 'youtube.com' || host === 'youtu.be') {
    url.searchParams.set('t', `${startSeconds}s`);
    return url.toString();
  }
  return url.hash === '' ? `${sourceUrl}#t=${startSeconds}` : sourceUrl;
}

/** A cue's time line: `00:01:02.500 --> …` in WebVTT, `00:01:02,500 --> …` in SubRip. */
const CUE_TIME_LINE = /^(?:\d+:)?\d{1,2}:\d{2}[.,]\d{3}[ \t]+-->[ \t]+/m;

/**
 * Whether a text fetched as captions looks like a caption file, by a cheap scan that needs no
 * parse: it has a cue time line, and WebVTT starts with `WEBVTT` (else it is SubRip). The parse itself runs
 * in the ingestion job, off the event loop, and names any damage it finds.
 */
export function captionFormatOf(text: string): 'vtt' | 'srt' | undefined {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (!CUE_TIME_LINE.test(start)) return undefined;
  return /^WEBVTT(?:[ \t\r\n]|$)/.test(start) ? 'vtt' : 'srt';
}
