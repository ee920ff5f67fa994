/**
 * BM25F as Robertson, Zaragoza and Taylor define it (2004; Robertson and Zaragoza, "The
 * Probabilistic Relevance Framework: BM25 and Beyond", 2009): each field's count of a term is
 * normalised by that field's own length against the field's average in the knowledge base, the
 * normalised counts are weighted and summed, and the sum is saturated once. The postings hold the
 * simpler form (weighted counts over one weighted length, chunk-search-repository.ts), which
 * judges a chunk's title by the length of its text and the reverse: a short title naming what the
 * chunk is about is diluted by a long text, and a long title makes a text look long. The re-rank
 * (proximity-rerank.ts) scores its candidates by this form instead; the title weight, k1 and b are
 * the ones the postings use (b the same for both fields), so nothing new is fitted.
 */
import { BM25_B, BM25_K1, type IndexStatistics } from '../store/chunk-search-repository.js';
import { TITLE_FIELD_WEIGHT } from '../store/text-analysis.js';

/** A knowledge base's average field lengths, in terms (unweighted). */
export interface FieldAverages {
  text: number;
  title: number;
}

/** The lengths of one chunk's fields, in terms (unweighted). */
export interface FieldLengths {
  text: number;
  title: number;
}

/**
 * A knowledge base's field averages from its own index totals. The title's is over the chunks that
 * have one, as Lucene averages a field over the documents holding it: a knowledge base where few
 * chunks have a title would otherwise make every title look long. The text's is the weighted
 * length left once the titles' weighted part is taken off, over every chunk.
 */
export function fieldAveragesOf(
  statistics: Pick<IndexStatistics, 'index_chunk_count' | 'index_length_total' | 'index_titled_chunk_count' | 'index_title_length_total'>,
): FieldAverages {
  const chunks = Math.max(statistics.index_chunk_count, 1);
  const title = statistics.index_title_length_total / Math.max(statistics.index_titled_chunk_count, 1);
  const text = (statistics.index_length_total - TITLE_FIELD_WEIGHT * statistics.index_title_length_total) / chunks;
  return { title, text: Math.max(text, 0) };
}

/** BM25's length normalisation of one field: 1 for a field of average length. */
function normalisation(length: number, average: number): number {
  // A field no chunk has (average 0) has no counts either, so any positive value would do.
  return average > 0 ? 1 - BM25_B + (BM25_B * length) / average : 1;
}

/** A chunk's two fields' length normalisations, worked out once for all the features of the chunk. */
export function fieldNormalisations(averages: FieldAverages, lengths: FieldLengths): FieldLengths {
  return { text: normalisation(lengths.text, Math.max(averages.text, 1)), title: normalisation(lengths.title, averages.title) };
}

/**
 * The saturation of one feature of a chunk whose fields' normalisations are `normalisations`:
 * its counts in each field → its score per unit of its weight (its idf). 1 for a chunk whose fields
 * are of average length holding the feature once in its text and not in its title, as the simple
 * form gives at average length; always under k1 + 1. Plain numbers in, so the re-rank's thousands
 * of calls a query allocate nothing.
 */
export function saturation(normalisations: FieldLengths, textCount: number, titleCount: number): number {
  const weighted = textCount / normalisations.text + (TITLE_FIELD_WEIGHT * titleCount) / normalisations.title;
  return weighted === 0 ? 0 : (weighted * (BM25_K1 + 1)) / (weighted + BM25_K1);
}
