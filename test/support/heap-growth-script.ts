/**
 * Run by test/heap-growth-limit-keeps-the-heap-near-what-is-live.test.ts in a process of its own:
 * applies HEAP_GROWTH_PERCENT as main.ts does (argv[2]), then allocates as a busy server does
 * (objects that live a while, as a request's do, then die) and prints the largest old space seen.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { limitHeapGrowth } from '../../src/process/heap-growth-limit.js';

limitHeapGrowth(Number(process.argv[2]));
const WINDOW = 150_000;
const ROUNDS = 4_000_000;
const inFlight: unknown[] = new Array<unknown>(WINDOW);
let largestOldSpace = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  inFlight[round % WINDOW] = { round, text: `in flight ${round}`, parts: [round, round + 1] };
  if (round % 20_000 === 0)
    largestOldSpace = Math.max(
      largestOldSpace,
      getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_size ?? 0,
    );
}
process.stdout.write(`${JSON.stringify({ largestOldSpaceBytes: largestOldSpace })}\n`);
