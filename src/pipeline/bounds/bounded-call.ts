/**
 * Runs one tool's work under its own timeout and the caller's abort signal, giving up on a tool
 * that ignores its signal instead of waiting for it, and names a failure safely: our own error
 * messages, the timeout, or only the kind of anything else (a plugin's error could quote secrets).
 */
import { AppError } from '../../errors/app-error.js';
import { startDeadline } from './deadline.js';
import type { ToolOutput } from '../plugin-contract/tool-definition.js';

export class ToolTimeout extends Error {
  constructor(readonly timeoutMilliseconds: number) {
    super(`timed out after ${timeoutMilliseconds} ms`);
    this.name = 'ToolTimeout';
  }
}

/**
 * Nothing this leaves behind can outlive the call: the timer is cleared and the listener on the
 * caller's signal removed however `work` ends, the promise that gives up on a stuck tool is only
 * ever rejected while someone awaits it, and a `work` that throws before returning a promise is
 * just a failed call. (A timeout promise built before `work` ran once ended the process: a tool
 * that threw at once left it rejecting later with no one listening.)
 */
export async function callWithinTimeout<Result>(
  work: (signal: AbortSignal) => Promise<Result>,
  parentSignal: AbortSignal,
  timeoutMilliseconds: number,
): Promise<Result> {
  // An already aborted signal never fires 'abort': without this check a tool that ignores its
  // signal would hang the run.
  if (parentSignal.aborted) throw parentSignal.reason;
  const deadline = startDeadline(timeoutMilliseconds, parentSignal, () => new ToolTimeout(timeoutMilliseconds));
  let giveUp: (reason: unknown) => void = () => undefined;
  const abandoned = new Promise<never>((_, reject) => {
    giveUp = reject;
  });
  const onAbort = (): void => giveUp(deadline.signal.reason);
  deadline.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const working = new Promise<Result>((resolve) => resolve(work(deadline.signal)));
    return await Promise.race([working, abandoned]);
  } finally {
    deadline.clear();
    deadline.signal.removeEventListener('abort', onAbort);
  }
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
