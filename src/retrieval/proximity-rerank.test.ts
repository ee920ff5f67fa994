import { describe, expect, it } from 'vitest';
import { phraseCount, PROXIMITY_WINDOW, windowCount } from './proximity-rerank.js';

describe('term proximity counts', () => {
  it('counts a phrase only in the query order, directly adjacent', () => {
    expect(phraseCount(['solar', 'panel', 'x', 'panel', 'solar', 'solar', 'panel'], 'solar', 'panel')).toBe(2);
    expect(phraseCount(['solar', 'x', 'panel'], 'solar', 'panel')).toBe(0);
  });

  it('counts both terms in either order within the window, each occurrence once', () => {
    const gap = (count: number) => Array.from({ length: count }, (_, index) => `filler${index}`);
    expect(windowCount(['panel', ...gap(PROXIMITY_WINDOW - 2), 'solar'], 'solar', 'panel', PROXIMITY_WINDOW)).toBe(1);
    expect(windowCount(['panel', ...gap(PROXIMITY_WINDOW - 1), 'solar'], 'solar', 'panel', PROXIMITY_WINDOW)).toBe(0);
    expect(windowCount(['solar', 'panel', 'solar'], 'solar', 'panel', PROXIMITY_WINDOW)).toBe(1);
    expect(windowCount(['solar', 'panel', 'panel', 'solar'], 'solar', 'panel', PROXIMITY_WINDOW)).toBe(2);
  });
});
