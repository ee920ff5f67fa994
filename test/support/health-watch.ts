/**
 * Polls `/healthz` one request after another, `intervalMs` apart, while something else runs, and
 * keeps what a stalled server would show: requests that failed or answered other than 200, and
 * the slowest answer. The server under test shares this process's event loop, so a stall in it
 * delays these answers too; a stall that falls between two requests delays the timer of the next
 * one instead, so an answer's time is counted from when its request was due, not from when the
 * late timer let it leave. Tests assert only on failures; the benchmark prints the times.
 */
export interface HealthFigures {
  checks: number;
  failures: number;
  /** What the first failure was, so a failing test says why. */
  firstFailure?: string;
  worstMilliseconds: number;
}

export interface HealthWatch {
  stop(): Promise<HealthFigures>;
}

export function watchHealth(server: { baseUrl: string }, intervalMs: number): HealthWatch {
  const figures: HealthFigures = { checks: 0, failures: 0, worstMilliseconds: 0 };
  const stopping = new AbortController();
  const loop = (async () => {
    let due = performance.now();
    while (!stopping.signal.aborted) {
      const started = due;
      try {
        const response = await fetch(`${server.baseUrl}/healthz`);
        await response.arrayBuffer();
        if (response.status !== 200) {
          figures.failures += 1;
          figures.firstFailure ??= `status ${response.status}`;
        }
      } catch (error) {
        figures.failures += 1;
        figures.firstFailure ??= error instanceof Error ? error.message : String(error);
      }
      figures.checks += 1;
      figures.worstMilliseconds = Math.max(figures.worstMilliseconds, performance.now() - started);
      due = performance.now() + intervalMs;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
      return figures;
    },
  };
}
