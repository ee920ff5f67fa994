/**
 * Hybrid retrieval's fusion step: full-text and vector rankings merged by reciprocal rank
 * (Cormack et al., 2009), which needs no calibration between BM25 scores and cosines. A chunk's
 * reported similarity is the best similarity any ranking gave it, so it stays in [0, 1] and a
 * threshold means the same as in either mode alone; the order is the fused one.
 */
import type { ChunkHit } from '../store/chunk-search-repository.js';

/** The usual constant: large enough that the first few ranks of each list weigh about the same. */
export const RECIPROCAL_RANK_CONSTANT = 60;

export function fuseByReciprocalRank(
  rankings: ReadonlyArray<readonly ChunkHit[]>,
  limit: number,
  constant = RECIPROCAL_RANK_CONSTANT,
): ChunkHit[] {
  const fused = new Map<number, { hit: ChunkHit; score: number }>();
  for (const ranking of rankings) {
    ranking.forEach((hit, index) => {
      const contribution = 1 / (constant + index + 1);
      const entry = fused.get(hit.id);
      if (entry === undefined) {
        fused.set(hit.id, { hit, score: contribution });
        return;
      }
      entry.score += contribution;
      if (hit.similarity > entry.hit.similarity) entry.hit = { ...entry.hit, similarity: hit.similarity };
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || b.hit.similarity - a.hit.similarity || a.hit.id - b.hit.id)
    .slice(0, Math.max(0, limit))
    .map((entry) => entry.hit);
}
