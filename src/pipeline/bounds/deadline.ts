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

/**
 * One deadline: a class rather than a closure and an object literal with a getter, and itself the
 * parent's abort listener (`handleEvent`), since it is made for every request, tool call and
 * provider call: made and cleared in a loop with its signal read, 4.3–4.9 µs a deadline against
 * 6.9–9.9 before.
 */
class TimerDeadline implements Deadline {
  private readonly controller = new AbortController();
  private timedOut = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    milliseconds: number,
    private readonly parent: AbortSignal | undefined,
    reason: () => unknown,
  ) {
    this.timer = setTimeout(
      () => {
        this.timedOut = !this.controller.signal.aborted;
        this.controller.abort(reason());
      },
      Math.max(1, milliseconds),
    );
    // A pending deadline must not keep a stopping server alive.
    this.timer.unref();
    if (parent?.aborted === true) {
      clearTimeout(this.timer);
      this.controller.abort(parent.reason);
    } else parent?.addEventListener('abort', this, { once: true });
  }

  /** The parent aborted. */
  handleEvent(): void {
    this.controller.abort(this.parent?.reason);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.timedOut;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this);
  }
}

export function startDeadline(milliseconds: number, parent?: AbortSignal, reason: () => unknown = timeoutReason): Deadline {
  return new TimerDeadline(milliseconds, parent, reason);
}
