import { describe, expect, it } from 'vitest';
import { BM25_K1 } from '../store/chunk-search-repository.js';
import { TITLE_FIELD_WEIGHT } from '../store/text-analysis.js';
import { fieldAveragesOf, fieldNormalisations, saturation, type FieldAverages, type FieldLengths } from './field-weighted-bm25.js';

const AVERAGES = { text: 10, title: 3 };

/** A chunk's saturation as a function of a feature's counts in its two fields. */
function fieldSaturation(averages: FieldAverages, lengths: FieldLengths): (counts: { text: number; title: number }) => number {
  const normalisations = fieldNormalisations(averages, lengths);
  return (counts) => saturation(normalisations, counts.text, counts.title);
}

describe('BM25F with a length normalisation per field', () => {
  it("reads each field's average from the knowledge base's own totals", () => {
    const statistics = { id: 1, search_language: 'english', index_chunk_count: 4 };
    const totals = { index_length_total: 4 * 10 + TITLE_FIELD_WEIGHT * 12, index_title_length_total: 12 };
    expect(fieldAveragesOf({ ...statistics, ...totals, index_titled_chunk_count: 4 })).toEqual(AVERAGES);
    // Over the chunks that have a title: two titles of 6 terms average 6, not 3.
    expect(fieldAveragesOf({ ...statistics, ...totals, index_titled_chunk_count: 2 })).toEqual({ text: 10, title: 6 });
    const empty = { index_chunk_count: 0, index_length_total: 0, index_titled_chunk_count: 0, index_title_length_total: 0 };
    expect(fieldAveragesOf({ ...statistics, ...empty })).toEqual({ text: 0, title: 0 });
  });

  it('gives 1 for one mention in a text of average length, as BM25 does, and counts a title mention TITLE_FIELD_WEIGHT times', () => {
    const saturated = fieldSaturation(AVERAGES, { text: 10, title: 3 });
    expect(saturated({ text: 1, title: 0 })).toBeCloseTo(1, 12);
    expect(saturated({ text: 0, title: 0 })).toBe(0);
    expect(saturated({ text: 0, title: 1 })).toBeCloseTo((TITLE_FIELD_WEIGHT * (BM25_K1 + 1)) / (TITLE_FIELD_WEIGHT + BM25_K1), 12);
    expect(saturated({ text: 1000, title: 1000 })).toBeLessThan(BM25_K1 + 1);
  });

  it("judges a title by the title's length alone, and a text by the text's", () => {
    const inTitle = { text: 0, title: 1 };
    expect(fieldSaturation(AVERAGES, { text: 5, title: 1 })(inTitle)).toBe(fieldSaturation(AVERAGES, { text: 500, title: 1 })(inTitle));
    expect(fieldSaturation(AVERAGES, { text: 10, title: 1 })(inTitle)).toBeGreaterThan(
      fieldSaturation(AVERAGES, { text: 10, title: 9 })(inTitle),
    );
    const inText = { text: 1, title: 0 };
    expect(fieldSaturation(AVERAGES, { text: 10, title: 1 })(inText)).toBe(fieldSaturation(AVERAGES, { text: 10, title: 30 })(inText));
    expect(fieldSaturation(AVERAGES, { text: 5, title: 3 })(inText)).toBeGreaterThan(
      fieldSaturation(AVERAGES, { text: 50, title: 3 })(inText),
    );
  });

  it('has no title part in a knowledge base without titles', () => {
    expect(fieldSaturation({ text: 10, title: 0 }, { text: 10, title: 0 })({ text: 1, title: 0 })).toBeCloseTo(1, 12);
  });
});
