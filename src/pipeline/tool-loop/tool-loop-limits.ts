/**
 * The tool loop's bounds for one assistant: the server's defaults, which an assistant may change
 * in `metadata.tool_loop` ({max_iterations, call_timeout_ms, total_timeout_ms,
 * max_identical_calls}) but never beyond the server's maximums (DESIGN §3).
 */
import type { ToolLoopLimits } from './tool-loop.js';

export interface ToolLoopSettings {
  iterations: number;
  iterationsMaximum: number;
  callTimeoutMilliseconds: number;
  callTimeoutMillisecondsMaximum: number;
  totalMilliseconds: number;
  totalMillisecondsMaximum: number;
  /** The server's identical-call limit is also the most an assistant may allow. */
  identicalCallsMaximum: number;
  resultCharactersMaximum: number;
}

/** The per-assistant overrides, as metadata carries them. */
export interface ToolLoopOverrides {
  max_iterations?: number;
  call_timeout_ms?: number;
  total_timeout_ms?: number;
  max_identical_calls?: number;
}

function bounded(requested: unknown, fallback: number, maximum: number): number {
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested < 1) return Math.min(fallback, maximum);
  return Math.min(requested, maximum);
}

export function toolLoopLimitsFor(overrides: ToolLoopOverrides | undefined, settings: ToolLoopSettings): ToolLoopLimits {
  return {
    iterations: bounded(overrides?.max_iterations, settings.iterations, settings.iterationsMaximum),
    callTimeoutMilliseconds: bounded(overrides?.call_timeout_ms, settings.callTimeoutMilliseconds, settings.callTimeoutMillisecondsMaximum),
    totalMilliseconds: bounded(overrides?.total_timeout_ms, settings.totalMilliseconds, settings.totalMillisecondsMaximum),
    identicalCallsMaximum: bounded(overrides?.max_identical_calls, settings.identicalCallsMaximum, settings.identicalCallsMaximum),
    resultCharactersMaximum: settings.resultCharactersMaximum,
  };
}
