/**
 * Distinct chunk texts at any count from the BEIR abstracts, for the benchmarks that fill a store:
 * real words with real statistics, none of them equal.
 */
import type { CorpusDocument } from './beir-data.js';

function sentencesOf(text: string): string[] {
  const sentences = text.split(/(?<=[.!?])\s+/).filter((sentence) => sentence.trim() !== '');
  return sentences.length > 0 ? sentences : [text];
}

/**
 * `count` distinct chunk texts: the abstracts as they are, then copies of them with their sentences
 * rotated and the first sentence of another abstract added.
 */
export function scaleTexts(corpus: readonly CorpusDocument[], count: number): string[] {
  const sentences = corpus.map((document) => sentencesOf(document.text));
  const texts: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const base = index % corpus.length;
    const copy = Math.floor(index / corpus.length);
    const document = corpus[base]!;
    if (copy === 0) {
      texts.push(`${document.title}\n${document.text}`);
      continue;
    }
    const own = sentences[base]!;
    const shift = copy % own.length;
    const rotated = [...own.slice(shift), ...own.slice(0, shift)];
    const donor = sentences[(base * 7 + copy * 131) % corpus.length]![0]!;
    texts.push(`${document.title}\n${rotated.join(' ')} ${donor}`);
  }
  return texts;
}
