/**
 * Answer times kept in the bounded histogram give quantiles within the bucket width (about 10%)
 * of the exact nearest-rank values, and nothing without answers.
 */
import { describe, expect, it } from 'vitest';
import { answerTimeBucket, answerTimeQuantile } from './answer-time-histogram.js';

function histogram(times: readonly number[]): { item: string; uses: number }[] {
  const counts = new Map<string, number>();
  for (const time of times) counts.set(answerTimeBucket(time), (counts.get(answerTimeBucket(time)) ?? 0) + 1);
  return [...counts].map(([item, uses]) => ({ item, uses }));
}

describe('answer time histogram', () => {
  it('reads the median and the 95th percentile within about 10% of the exact values', () => {
    const times = Array.from({ length: 1_000 }, (_, index) => 200 + index * 37);
    const exact = (quantile: number) => times[Math.ceil(quantile * times.length) - 1]!;
    for (const quantile of [0.5, 0.95]) {
      const estimate = answerTimeQuantile(histogram(times), quantile)!;
      expect(Math.abs(estimate - exact(quantile)) / exact(quantile)).toBeLessThan(0.1);
    }
  });

  it('keeps every time in one of 64 buckets and answers null without answers', () => {
    expect(answerTimeBucket(0)).toBe('00');
    expect(answerTimeBucket(10 ** 12)).toBe('63');
    expect(answerTimeQuantile([], 0.5)).toBeNull();
  });
});
