/** Reads the BEIR-format data set the benchmarks measure on (`BEIR_DIRECTORY`, else ../shared/data/beir-dbpedia-5k/). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BEIR_DIRECTORY =
  process.env.BEIR_DIRECTORY ?? fileURLToPath(new URL('../../../shared/data/beir-dbpedia-5k/', import.meta.url));

export interface CorpusDocument {
  _id: string;
  title: string;
  text: string;
}

export interface BeirQuery {
  _id: string;
  text: string;
}

/** One JSON object per line, as BEIR's corpus.jsonl and queries.jsonl hold them. */
export function readJsonLines<Row>(fileName: string): Row[] {
  return readFileSync(`${BEIR_DIRECTORY}${fileName}`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
}

/** The BEIR queries, then titles of abstracts spread over the corpus, `count` in all: the latency benchmarks' query set. */
export function queriesWithTitles(corpus: readonly CorpusDocument[], count: number): string[] {
  const beirQueries = readJsonLines<BeirQuery>('queries.jsonl').map((query) => query.text);
  const titleCount = Math.max(0, count - beirQueries.length);
  const titleStep = Math.max(1, Math.floor(corpus.length / Math.max(1, titleCount)));
  const titles = Array.from({ length: titleCount }, (_, index) => corpus[(index * titleStep) % corpus.length]!.title);
  return [...beirQueries, ...titles].slice(0, count);
}
