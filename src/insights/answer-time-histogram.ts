/**
 * Answer times kept as a bounded histogram (docs/assistant-insights.md): bucket i holds the
 * answers that took from 50 ms × 1.2^i up to 50 ms × 1.2^(i+1), so at most 64 buckets per
 * assistant and day whatever the traffic. A quantile is read as the geometric middle of the bucket
 * holding its rank, within about 10% of the exact value; faster than the first bucket counts as
 * bucket 0, slower than the last as the last.
 */

const FIRST_BUCKET_MILLISECONDS = 50;
const GROWTH = 1.2;
const BUCKETS = 64;

/** The bucket of an answer time, as the two-digit text the roll-up keys it by. */
export function answerTimeBucket(milliseconds: number): string {
  const index =
    milliseconds <= FIRST_BUCKET_MILLISECONDS ? 0 : Math.floor(Math.log(milliseconds / FIRST_BUCKET_MILLISECONDS) / Math.log(GROWTH));
  return String(Math.min(BUCKETS - 1, Math.max(0, index))).padStart(2, '0');
}

/** The time (whole milliseconds) of the answer at quantile `quantile` (0.5, 0.95), nearest rank; null without answers. */
export function answerTimeQuantile(buckets: readonly { item: string; uses: number }[], quantile: number): number | null {
  const ordered = [...buckets].sort((first, second) => Number(first.item) - Number(second.item));
  const total = ordered.reduce((sum, bucket) => sum + bucket.uses, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(quantile * total));
  let seen = 0;
  for (const bucket of ordered) {
    seen += bucket.uses;
    if (seen >= rank) return Math.round(FIRST_BUCKET_MILLISECONDS * GROWTH ** (Number(bucket.item) + 0.5));
  }
  return null;
}
