/**
 * A deadline as an abort signal that is sure to fire, and that lets go of its parent when the work
 * ends. `AbortSignal.timeout()` holds its signal only weakly and clears its timer when the collector
 * takes the signal, and a signal made by `AbortSignal.any()` stays attached to its parents until they
 * abort: nodejs/node#57736 reports a timeout inside `AbortSignal.any()` that never fired, and under
 * heavy load our own 200 ms integration deadline once failed to fire. Here a real timer holds the
 * controller until the deadline passes or the work clears it.
 */

export interface Deadline {
  /** Aborts when the deadline passes (with the deadline's reason) or the parent aborts (with the parent's). */
  readonly signal: AbortSignal;
  /** True once it was the deadline, not the parent, that aborted the signal. */
  readonly expired: boolean;
  /** Stops the timer and lets go of the parent; call it when the work ends, however it ends. */
  clear(): void;
}

function timeoutReason(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

/** Runs a stream of events under a deadline that ends with it, however the stream ends. */
export async function* streamWithinDeadline<Event>(
  milliseconds: number,
  parent: AbortSignal,
  stream: (signal: AbortSignal) => AsyncGenerator<Event>,
): AsyncGenerator<Event> {
  const deadline = startDeadline(milliseconds, parent);
  try {
    yield* stream(deadline.signal);
  } finally {
    deadline.clear();
  }
}

export function startDeadline(milliseconds: number, parent?: AbortSignal, reason: () => unknown = timeoutReason): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = (): void => controller.abort(parent?.reason);
  const timer = setTimeout(
    () => {
      expired = !controller.signal.aborted;
      controller.abort(reason());
    },
    Math.max(1, milliseconds),
  );
  // A pending deadline must not keep a stopping server alive.
  timer.unref();
  if (parent?.aborted === true) {
    clearTimeout(timer);
    controller.abort(parent.reason);
  } else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
