// Proves HEAP_GROWTH_PERCENT: the same allocation, in processes of their own, leaves a much smaller
// heap with the limit than with V8's own choice (0), because V8 reads the limit set at start-up.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./support/heap-growth-script.ts', import.meta.url));

async function largestOldSpace(percent: number): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT, String(percent)], { timeout: 60_000 });
  return (JSON.parse(stdout) as { largestOldSpaceBytes: number }).largestOldSpaceBytes;
}

describe('HEAP_GROWTH_PERCENT', () => {
  it('keeps the old space of a busy process well below what V8 alone lets it reach', async () => {
    const [unlimited, limited] = await Promise.all([largestOldSpace(0), largestOldSpace(25)]);
    expect(limited).toBeGreaterThan(0);
    expect(limited).toBeLessThan(unlimited * 0.7);
  });
});
