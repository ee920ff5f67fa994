/**
 * Proves that a bounded call leaves nothing behind whatever its work does (resolves, rejects,
 * throws before returning a promise, ignores its signal): it settles with the right outcome, no
 * rejection is left for no one to handle once the timeout has passed, and no listener stays on
 * the caller's signal.
 */
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callWithinTimeout, ToolTimeout } from './bounded-call.js';

const TIMEOUT_MILLISECONDS = 40;

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

describe('callWithinTimeout', () => {
  const unhandled: unknown[] = [];
  const recordUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeAll(() => process.on('unhandledRejection', recordUnhandled));
  afterAll(() => process.off('unhandledRejection', recordUnhandled));
  beforeEach(() => {
    unhandled.length = 0;
  });

  async function expectNothingLeftBehind(parent: AbortSignal): Promise<void> {
    await pause(TIMEOUT_MILLISECONDS * 3);
    expect(unhandled).toEqual([]);
    expect(getEventListeners(parent, 'abort')).toHaveLength(0);
  }

  it('turns work that throws before returning a promise into a failed call', async () => {
    const parent = new AbortController().signal;
    const failure = new TypeError('definition.provide is not a function');
    await expect(
      callWithinTimeout(
        () => {
          throw failure;
        },
        parent,
        TIMEOUT_MILLISECONDS,
      ),
    ).rejects.toBe(failure);
    await expectNothingLeftBehind(parent);
  });

  it('returns what the work resolves to', async () => {
    const parent = new AbortController().signal;
    await expect(callWithinTimeout(async () => 'done', parent, TIMEOUT_MILLISECONDS)).resolves.toBe('done');
    await expectNothingLeftBehind(parent);
  });

  it('passes on what the work rejects with', async () => {
    const parent = new AbortController().signal;
    await expect(callWithinTimeout(async () => Promise.reject(new RangeError('bad')), parent, TIMEOUT_MILLISECONDS)).rejects.toBeInstanceOf(
      RangeError,
    );
    await expectNothingLeftBehind(parent);
  });

  it('gives up on work that ignores its signal with a ToolTimeout, and aborts that signal', async () => {
    const parent = new AbortController().signal;
    let seen: AbortSignal | undefined;
    const attempt = callWithinTimeout(
      (signal) => {
        seen = signal;
        return new Promise<never>(() => undefined);
      },
      parent,
      TIMEOUT_MILLISECONDS,
    );
    await expect(attempt).rejects.toBeInstanceOf(ToolTimeout);
    expect(seen?.aborted).toBe(true);
    await expectNothingLeftBehind(parent);
  });

  it("stops at once with the caller's reason when the caller aborts", async () => {
    const parent = new AbortController();
    const reason = new DOMException('The client went away.', 'AbortError');
    const attempt = callWithinTimeout(() => new Promise<never>(() => undefined), parent.signal, 60_000);
    parent.abort(reason);
    await expect(attempt).rejects.toBe(reason);
    await expectNothingLeftBehind(parent.signal);
  });

  it('does not start work when the caller has already aborted', async () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    let started = false;
    await expect(
      callWithinTimeout(
        async () => {
          started = true;
        },
        parent.signal,
        TIMEOUT_MILLISECONDS,
      ),
    ).rejects.toThrow('gone');
    expect(started).toBe(false);
  });
});
