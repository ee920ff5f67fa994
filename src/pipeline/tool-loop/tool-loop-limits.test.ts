// Proves how an assistant's metadata.tool_loop changes the loop's bounds: server defaults when unset or invalid, the assistant's own values when set, never beyond the server's maximums.
import { describe, expect, it } from 'vitest';
import { toolLoopLimitsFor, type ToolLoopSettings } from './tool-loop-limits.js';

const SETTINGS: ToolLoopSettings = {
  iterations: 5,
  iterationsMaximum: 10,
  callTimeoutMilliseconds: 30_000,
  callTimeoutMillisecondsMaximum: 120_000,
  totalMilliseconds: 180_000,
  totalMillisecondsMaximum: 600_000,
  identicalCallsMaximum: 2,
  resultCharactersMaximum: 20_000,
};

describe('tool loop limits for an assistant', () => {
  it('uses the server defaults when the assistant sets nothing or something invalid', () => {
    const defaults = {
      iterations: 5,
      callTimeoutMilliseconds: 30_000,
      totalMilliseconds: 180_000,
      identicalCallsMaximum: 2,
      resultCharactersMaximum: 20_000,
    };
    expect(toolLoopLimitsFor(undefined, SETTINGS)).toEqual(defaults);
    expect(toolLoopLimitsFor({ max_iterations: 0, call_timeout_ms: -5, total_timeout_ms: 1.5 }, SETTINGS)).toEqual(defaults);
  });

  it("takes the assistant's own values within the maximums", () => {
    expect(
      toolLoopLimitsFor({ max_iterations: 8, call_timeout_ms: 1_000, total_timeout_ms: 300_000, max_identical_calls: 1 }, SETTINGS),
    ).toMatchObject({
      iterations: 8,
      callTimeoutMilliseconds: 1_000,
      totalMilliseconds: 300_000,
      identicalCallsMaximum: 1,
    });
  });

  it("never goes beyond the server's maximums", () => {
    expect(
      toolLoopLimitsFor({ max_iterations: 50, call_timeout_ms: 999_999, total_timeout_ms: 9_999_999, max_identical_calls: 9 }, SETTINGS),
    ).toMatchObject({
      iterations: 10,
      callTimeoutMilliseconds: 120_000,
      totalMilliseconds: 600_000,
      identicalCallsMaximum: 2,
    });
  });
});
