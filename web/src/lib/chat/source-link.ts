/**
 * Which sources become links. Only an absolute http(s) URL or a path on this site is followed;
 * anything else a tool reported (a file path inside a knowledge base, an unknown scheme) is shown
 * as text, never as an href.
 */
import type { Source } from '$lib/api/chat-types';

export function sourceLink(source: Source, origin: string): string | undefined {
  const url = source.url;
  if (typeof url !== 'string' || url.trim() === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    return undefined;
  }
  const sameOrigin = parsed.origin === new URL(origin).origin;
  const absoluteWeb = /^https?:\/\//i.test(url.trim()) && (parsed.protocol === 'https:' || parsed.protocol === 'http:');
  const sitePath = url.startsWith('/') && !url.startsWith('//') && sameOrigin;
  return absoluteWeb || sitePath ? parsed.href : undefined;
}

/** The page of the document the source is on, when its tool knows it (a PDF's passages do). */
export function sourcePage(source: Source): number | undefined {
  return typeof source.page === 'number' ? source.page : undefined;
}

/** A file path or title's last part, which names the document for a reader. */
export function sourceName(source: Source): string {
  const title = source.title.trim();
  return title === '' ? (source.url ?? '') : title;
}
