import { describe, expect, it } from 'vitest';
import { secondsUntilWindowEnds } from './rate-limiter.js';

const HOUR = { maximum: 20, windowMilliseconds: 3_600_000 };

describe('Retry-After of a rate limit', () => {
  it('is never longer than the window when another request opened it a moment after this one read the clock', () => {
    const now = 1_000_000;
    expect(secondsUntilWindowEnds({ count: 21, windowStartedAt: now + 5 }, HOUR, now)).toBe(3600);
    expect(secondsUntilWindowEnds({ count: 21, windowStartedAt: now + 2_500 }, HOUR, now)).toBe(3600);
  });

  it('counts the whole seconds left, and at least one when the window is ending', () => {
    const now = 1_000_000;
    expect(secondsUntilWindowEnds({ count: 21, windowStartedAt: now - 1_800_000 }, HOUR, now)).toBe(1800);
    expect(secondsUntilWindowEnds({ count: 21, windowStartedAt: now - 3_599_999 }, HOUR, now)).toBe(1);
    expect(secondsUntilWindowEnds({ count: 21, windowStartedAt: now - 3_600_500 }, HOUR, now)).toBe(1);
  });
});
