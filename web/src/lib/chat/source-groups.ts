/**
 * An answer's sources grouped by document: one entry per document, holding the passages of it the
 * answer used, each with the number the answer's citations use (its place in the answer's sources,
 * counting from 1). The server sends one source per passage, so the same file is named once here.
 */
import type { Source } from '$lib/api/chat-types';
import { sourceLink, sourceName } from './source-link';

export interface SourcePassage {
  /** The citation number, `[1]` in the answer. */
  number: number;
  source: Source;
}

export interface SourceGroup {
  key: string;
  name: string;
  /** A link that is safe to follow, when the document has one. */
  link: string | undefined;
  passages: SourcePassage[];
}

/** Which document a source is a passage of: its knowledge base and document, else its address, else its name. */
function documentKey(source: Source): string {
  if (typeof source.document_id === 'string') return `document:${source.knowledge_base_id ?? ''}:${source.document_id}`;
  if (typeof source.url === 'string' && source.url !== '') return `url:${source.url.replace(/#.*$/, '')}`;
  return `name:${sourceName(source)}`;
}

export function groupSources(sources: readonly Source[], origin: string): SourceGroup[] {
  const groups = new Map<string, SourceGroup>();
  sources.forEach((source, index) => {
    const key = documentKey(source);
    const passage = { number: index + 1, source };
    const group = groups.get(key);
    if (group) {
      group.passages.push(passage);
      group.link ??= sourceLink(source, origin);
    } else groups.set(key, { key, name: sourceName(source), link: sourceLink(source, origin), passages: [passage] });
  });
  return [...groups.values()];
}

/** The id of a passage's entry, which a citation `[n]` in the same answer links to. */
export function passageElementId(answerKey: string, number: number): string {
  return `${answerKey}-source-${number}`;
}
