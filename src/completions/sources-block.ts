/**
 * The markdown "Sources" block that ends an answer for front ends that show only its text (Open
 * WebUI drops the `sources` field of outside models): entry n is source n, as the model's `[n]`
 * citations number them, linked to the passage when a link can be made. Titles are escaped so a
 * document's name cannot inject markdown or links; only http(s) URLs are ever linked.
 */
import { listedSources, type PipelineEvent, type Source } from '../pipeline/conversation/events.js';

/** A link to the passage a source cites, or undefined when there is none to give. */
export type SourceLinkMaker = (source: Source) => string | undefined;

const TITLE_CHARACTERS_MAXIMUM = 200;
const MARKDOWN_SPECIAL = /[\\`*_{}[\]()<>#+!|~]/g;
const WHITESPACE_RUN = /\s+/g;

function escapedTitle(source: Source): string {
  const title = source.title.replace(WHITESPACE_RUN, ' ').trim().slice(0, TITLE_CHARACTERS_MAXIMUM) || 'Source';
  const where = [source.section, source.page === undefined ? undefined : `p. ${source.page}`].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  const text = where.length === 0 ? title : `${title} (${where.join(', ').replace(WHITESPACE_RUN, ' ').slice(0, 100)})`;
  return text.replace(MARKDOWN_SPECIAL, (character) => `\\${character}`);
}

/** A URL markdown can carry whole: http(s) only, with the characters that would end it escaped. */
function safeUrl(url: string | undefined): string | undefined {
  if (url === undefined || !/^https?:\/\//i.test(url)) return undefined;
  try {
    return new URL(url).href.replaceAll('(', '%28').replaceAll(')', '%29');
  } catch {
    return undefined;
  }
}

/** The block for these sources, or undefined when there are none. */
export function sourcesBlock(sources: readonly Source[], linkOf: SourceLinkMaker): string | undefined {
  if (sources.length === 0) return undefined;
  const entries = sources.map((source, index) => {
    const title = escapedTitle(source);
    const url = safeUrl(linkOf(source) ?? source.url);
    return `${index + 1}. ${url === undefined ? title : `[${title}](${url})`}`;
  });
  return `\n\n**Sources**\n\n${entries.join('\n')}\n`;
}

/** The run's events, with the block written as the answer's last text, just before it finishes. */
export async function* withSourcesBlock(events: AsyncGenerator<PipelineEvent>, linkOf: SourceLinkMaker): AsyncGenerator<PipelineEvent> {
  const sources: Source[] = [];
  let written = false;
  for await (const event of events) {
    if (event.type === 'sources') sources.push(...listedSources(event.sources));
    if (event.type === 'finish' && !written) {
      written = true;
      const block = sourcesBlock(sources, linkOf);
      if (block !== undefined) yield { type: 'text-delta', text: block };
    }
    yield event;
  }
}
