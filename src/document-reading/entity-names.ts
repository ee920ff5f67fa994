/**
 * How entity names are compared in a knowledge base's entity graph (docs/graph-search.md): lower
 * case, accents gone, every run of punctuation and spaces one space, so "Marie Curie",
 * "marie  curie" and "Marie-Curie" are one entity, and a question names it in any of those ways.
 */

/** Words in the longest name a question is searched for. */
export const NAME_WORDS_MAXIMUM = 4;
/** Most candidate names one question gives: its first words' runs only, so a long question stays one small query. */
const CANDIDATES_MAXIMUM = 400;

function words(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** The name as it is stored and matched; empty when it has no letter or digit. */
export function normalizedEntityName(name: string): string {
  return words(name).join(' ');
}

/** Every run of one to NAME_WORDS_MAXIMUM consecutive words of the text, normalised, each once. */
export function nameCandidates(text: string): string[] {
  const all = words(text);
  const candidates = new Set<string>();
  for (let start = 0; start < all.length && candidates.size < CANDIDATES_MAXIMUM; start += 1)
    for (let length = 1; length <= NAME_WORDS_MAXIMUM && start + length <= all.length; length += 1)
      candidates.add(all.slice(start, start + length).join(' '));
  return [...candidates].slice(0, CANDIDATES_MAXIMUM);
}
