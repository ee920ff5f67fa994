import { describe, expect, it } from 'vitest';
import type { ChunkHit } from '../store/chunk-search-repository.js';
import { fuseByReciprocalRank, RECIPROCAL_RANK_CONSTANT } from './reciprocal-rank-fusion.js';

function hit(id: number, similarity: number): ChunkHit {
  return { id, knowledgeBaseId: 1, documentId: 1, chunkIndex: id, text: `chunk ${id}`, metadata: {}, similarity };
}

describe('reciprocal rank fusion', () => {
  it('puts a chunk both rankings found above chunks only one found', () => {
    const fullText = [hit(1, 0.9), hit(2, 0.5), hit(3, 0.4)];
    const vector = [hit(4, 0.8), hit(3, 0.7), hit(5, 0.6)];
    expect(fuseByReciprocalRank([fullText, vector], 5).map((item) => item.id)).toEqual([3, 1, 4, 2, 5]);
  });

  it('scores by rank alone: 1/(k + rank) summed over the rankings', () => {
    // 7 is second in both lists: 2/(k+2) beats 1/(k+1) only for k > 0, as the formula says.
    const fused = fuseByReciprocalRank(
      [
        [hit(6, 0.99), hit(7, 0.1)],
        [hit(8, 0.99), hit(7, 0.1)],
      ],
      3,
    );
    expect(fused[0]!.id).toBe(7);
    expect(2 / (RECIPROCAL_RANK_CONSTANT + 2)).toBeGreaterThan(1 / (RECIPROCAL_RANK_CONSTANT + 1));
  });

  it('reports the best similarity any ranking gave a chunk, so it stays in [0, 1]', () => {
    const fused = fuseByReciprocalRank([[hit(1, 0.2)], [hit(1, 0.75)]], 1);
    expect(fused).toEqual([{ ...hit(1, 0.75) }]);
  });

  it('keeps at most limit chunks and accepts empty rankings', () => {
    expect(fuseByReciprocalRank([[hit(1, 0.5), hit(2, 0.4)], []], 1)).toHaveLength(1);
    expect(fuseByReciprocalRank([[], []], 5)).toEqual([]);
    expect(fuseByReciprocalRank([[hit(1, 0.5)]], 0)).toEqual([]);
  });

  it('breaks ties in score by similarity, then by id, so the order is stable', () => {
    expect(fuseByReciprocalRank([[hit(2, 0.3)], [hit(1, 0.3)]], 2).map((item) => item.id)).toEqual([1, 2]);
    expect(fuseByReciprocalRank([[hit(2, 0.3)], [hit(1, 0.6)]], 2).map((item) => item.id)).toEqual([1, 2]);
  });
});
