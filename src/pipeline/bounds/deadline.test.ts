// Proves deadlines fire even after garbage collection (Node 20's AbortSignal.timeout inside AbortSignal.any may not), tell the deadline from the parent, stop when cleared, and that src/ uses no AbortSignal.timeout at all.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { startDeadline, streamWithinDeadline } from './deadline.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

describe('a deadline', () => {
  it('fires although nothing but a listener holds its signal and the collector ran', async () => {
    const parent = new AbortController();
    let fired = false;
    (() => {
      startDeadline(30, parent.signal).signal.addEventListener('abort', () => (fired = true), { once: true });
    })();
    collectGarbage();
    await pause(100);
    collectGarbage();
    await pause(50);
    expect(fired).toBe(true);
  });

  it('aborts with a TimeoutError and says it expired', async () => {
    const deadline = startDeadline(10);
    const reason = await aborted(deadline.signal);
    expect((reason as DOMException).name).toBe('TimeoutError');
    expect(deadline.expired).toBe(true);
  });

  it("carries the parent's reason when the parent aborts first, and has not expired", async () => {
    const parent = new AbortController();
    const deadline = startDeadline(10_000, parent.signal, () => 'deadline');
    parent.abort('the learner left');
    expect(deadline.signal.reason).toBe('the learner left');
    await pause(20);
    expect(deadline.expired).toBe(false);
    deadline.clear();
  });

  it('starts aborted under an aborted parent', () => {
    const parent = new AbortController();
    parent.abort('gone');
    const deadline = startDeadline(5, parent.signal);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(false);
  });

  it('never fires once cleared', async () => {
    const deadline = startDeadline(10);
    deadline.clear();
    await pause(40);
    expect(deadline.signal.aborted).toBe(false);
  });

  it('lets go of its parent once cleared', () => {
    const parent = new AbortController();
    const deadline = startDeadline(10_000, parent.signal);
    deadline.clear();
    parent.abort('too late to matter');
    expect(deadline.signal.aborted).toBe(false);
  });

  it('bounds a stream and clears itself when the stream ends', async () => {
    let seen: AbortSignal | undefined;
    async function* stream(signal: AbortSignal): AsyncGenerator<number> {
      seen = signal;
      yield 1;
      yield 2;
    }
    const events: number[] = [];
    for await (const event of streamWithinDeadline(20, new AbortController().signal, stream)) events.push(event);
    expect(events).toEqual([1, 2]);
    await pause(50);
    expect(seen?.aborted).toBe(false);
  });
});

describe('the source tree', () => {
  it('builds no deadline from AbortSignal.timeout, which the collector can silence', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const offenders: string[] = [];
    const visit = (folder: string): void => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const full = path.join(folder, entry.name);
        if (entry.isDirectory()) visit(full);
        else if (
          entry.name.endsWith('.ts') &&
          !entry.name.endsWith('.test.ts') &&
          full !== fileURLToPath(import.meta.url).replace('.test.ts', '.ts')
        ) {
          if (readFileSync(full, 'utf8').includes('AbortSignal.timeout(')) offenders.push(path.relative(root, full));
        }
      }
    };
    visit(root);
    expect(offenders).toEqual([]);
  });
});
