/**
 * Runs one tool's work under its own timeout and the caller's abort signal, giving up on a tool
 * that ignores its signal instead of waiting for it, and names a failure safely: our own error
 * messages, the timeout, or only the kind of anything else (a plugin's error could quote secrets).
 */
import { AppError } from '../errors/app-error.js';
import type { ToolOutput } from './tool-definition.js';

export class ToolTimeout extends Error {
  constructor(readonly timeoutMilliseconds: number) {
    super(`timed out after ${timeoutMilliseconds} ms`);
    this.name = 'ToolTimeout';
  }
}

export async function callWithinTimeout<Result>(work: (signal: AbortSignal) => Promise<Result>, parentSignal: AbortSignal, timeoutMilliseconds: number): Promise<Result> {
  const timeout = AbortSignal.timeout(timeoutMilliseconds);
  const signal = AbortSignal.any([parentSignal, timeout]);
  // A signal that is already aborted never fires 'abort': check first, or a tool that ignores
  // its signal would hang the run.
  if (signal.aborted) throw timeout.aborted ? new ToolTimeout(timeoutMilliseconds) : signal.reason;
  const abandoned = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(timeout.aborted && !parentSignal.aborted ? new ToolTimeout(timeoutMilliseconds) : signal.reason), { once: true }),
  );
  return Promise.race([work(signal), abandoned]);
}

export function failureReason(error: unknown): string {
  if (error instanceof ToolTimeout) return error.message;
  if (error instanceof AppError) return error.message;
  return error instanceof Error ? `failed (${error.name})` : 'failed';
}

/** Plugins written in plain JavaScript get no type checks: a malformed output is a failure of that tool only. */
export function requireValidOutput(output: unknown): ToolOutput {
  const candidate = output as ToolOutput | undefined;
  if (typeof candidate?.content !== 'string' || (candidate.sources !== undefined && !Array.isArray(candidate.sources))) {
    throw new AppError('internal_error', 'returned an invalid output');
  }
  return candidate;
}
