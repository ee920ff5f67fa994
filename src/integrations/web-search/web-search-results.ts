/**
 * What every web search provider's client answers with: a title, a URL and a snippet per result,
 * each bounded and checked (an http(s) URL, no markup in the text), so the tool and the model see
 * the same shape whichever provider the organization chose.
 */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

const TITLE_CHARACTERS_MAXIMUM = 300;
const SNIPPET_CHARACTERS_MAXIMUM = 1_000;
const URL_CHARACTERS_MAXIMUM = 2_000;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'", '#x27': "'" };

/** Plain text from a provider's text: Brave marks matches with `<strong>`, and providers escape entities. */
function plainText(value: unknown, maximum: number): string {
  if (typeof value !== 'string') return '';
  const text = value
    // A tag holds no `<`: with `[^>]` a run of `<` would be scanned again from each one.
    .replace(/<[^<>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39|#x27);/g, (_match, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > maximum ? `${text.slice(0, maximum)}…` : text;
}

function webUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > URL_CHARACTERS_MAXIMUM) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** One result from a provider's raw entry, or undefined when it has no usable URL. */
export function searchResult(entry: unknown, fields: { title: string; url: string; snippet: string }): WebSearchResult | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const record = entry as Record<string, unknown>;
  const url = webUrl(record[fields.url]);
  if (url === undefined) return undefined;
  const title = plainText(record[fields.title], TITLE_CHARACTERS_MAXIMUM);
  return { title: title === '' ? new URL(url).host : title, url, snippet: plainText(record[fields.snippet], SNIPPET_CHARACTERS_MAXIMUM) };
}

/** The results of a provider's list, at most `count`, skipping unusable entries and repeated URLs. */
export function searchResults(entries: unknown, fields: { title: string; url: string; snippet: string }, count: number): WebSearchResult[] {
  if (!Array.isArray(entries)) return [];
  const seen = new Set<string>();
  const results: WebSearchResult[] = [];
  for (const entry of entries) {
    const result = searchResult(entry, fields);
    if (result === undefined || seen.has(result.url)) continue;
    seen.add(result.url);
    results.push(result);
    if (results.length >= count) break;
  }
  return results;
}
