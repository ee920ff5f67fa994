/**
 * What the benchmarks share: a bounded pool of concurrent calls, latency percentiles, and the
 * tables they print. Figures are printed, never asserted on: timings depend on the machine.
 */

export interface Figures {
  name: string;
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  /** What the first failed call threw or answered, so a failing run says why. */
  firstError?: string;
}

/** The value at `fraction` of an ascending list (nearest rank, rounded down); 0 for an empty list. */
/** A whole-number knob of a benchmark from the environment: its default when unset or blank, else at least `minimum`. */
export function wholeNumberSetting(variable: string, defaultValue: number, minimum = 0): number {
  const raw = process.env[variable];
  if (raw === undefined || raw.trim() === '') return defaultValue;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < minimum)
    throw new Error(`${variable} must be a whole number of ${minimum} or more, got "${raw}"`);
  return value;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

export function ascending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Runs `task(0)` … `task(count - 1)` with at most `concurrency` at once; answers the wall-clock seconds. */
export async function runPool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Calls `call` `count` times, `concurrency` at once, timing each call. A call fails when it answers
 * a status of 400 or more or throws; failures are counted, not rethrown, so one bad call does not
 * hide the figures of the others.
 */
export async function measure(
  name: string,
  count: number,
  concurrency: number,
  call: (index: number) => Promise<number>,
): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const seconds = await runPool(count, concurrency, async (index) => {
    const begin = performance.now();
    try {
      const status = await call(index);
      if (status >= 400) {
        errors += 1;
        firstError ??= `status ${status}`;
      }
    } catch (error) {
      errors += 1;
      firstError ??= describeError(error);
    }
    latencies.push(performance.now() - begin);
  });
  const sorted = ascending(latencies);
  return {
    name,
    requests: count,
    seconds,
    requestsPerSecond: count / seconds,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    errors,
    ...(firstError !== undefined && { firstError }),
  };
}

export interface Column {
  label: string;
  width: number;
  /** Numbers are right-aligned, names left-aligned (the default for the first column). */
  align?: 'left' | 'right';
}

/** A title line, a header and one line per row, each cell padded to its column's width. */
export function printTable(title: string, columns: readonly Column[], rows: ReadonlyArray<readonly string[]>): void {
  const line = (cells: readonly string[]) =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? '';
        const left = (column.align ?? (index === 0 ? 'left' : 'right')) === 'left';
        return left ? cell.padEnd(column.width) : cell.padStart(column.width);
      })
      .join(' ');
  process.stdout.write(`\n${title}\n${line(columns.map((column) => column.label))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

export function milliseconds(value: number): string {
  return value.toFixed(1);
}

/** The standard table: requests per second, p50/p95/p99 latency in milliseconds, and failed calls. */
export function printFigures(title: string, rows: readonly Figures[], nameWidth = 44): void {
  printTable(
    title,
    [
      { label: 'call', width: nameWidth },
      { label: 'req/s', width: 8 },
      { label: 'p50 ms', width: 8 },
      { label: 'p95 ms', width: 8 },
      { label: 'p99 ms', width: 8 },
      { label: 'errors', width: 7 },
    ],
    rows.map((row) => [
      row.name,
      row.requestsPerSecond.toFixed(0),
      milliseconds(row.p50),
      milliseconds(row.p95),
      milliseconds(row.p99),
      String(row.errors),
    ]),
  );
  for (const row of rows) {
    if (row.firstError !== undefined) process.stdout.write(`  ${row.name}: first failure: ${row.firstError}\n`);
  }
}
