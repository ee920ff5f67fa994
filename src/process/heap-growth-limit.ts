/**
 * Keeps the heap close to what is live. After each full collection V8 sets the size at which the
 * next one starts; under a burst of allocation (a thousand streams) it picks up to several times
 * what survived, and that slack is most of a busy server's memory. Capping the growth makes full
 * collections a little more frequent: measured with the gateway benchmark at 50 %, the classic
 * assistant's peak RSS under 1,000 streams went from 305–387 to 228 MiB with the same CPU per
 * request (docs/throughput.md). V8 reads `--heap-growing-percent` whenever it sets that size, so
 * setting it at start-up takes effect without restarting Node with the flag.
 */
import { setFlagsFromString } from 'node:v8';

/** HEAP_GROWTH_PERCENT: how far past the live heap the next full collection may wait; 0 keeps V8's own choice. */
export function limitHeapGrowth(percent: number): void {
  if (percent <= 0) return;
  setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
