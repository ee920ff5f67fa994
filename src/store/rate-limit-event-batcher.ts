/**
 * Chat requests counted against their rate limits together. Every chat request counts an event,
 * and on SQLite each count was a commit of its own: most of the store's time in a request. The
 * requests that arrive in one turn of the event loop are counted in one statement instead (one
 * commit, one round trip), counting each subject once with the number of its events. Each request
 * still gets the exact count its own event made, as if the events had been counted one by one in
 * the order they arrived. A request waits at most until the loop's next check phase.
 */
import type { Kysely } from 'kysely';
import { countRateLimitEvents, type CounterState } from './rate-limit-repository.js';
import type { Database } from './schema.js';

interface PendingEvent {
  subjects: readonly string[];
  resolve: (states: Map<string, CounterState>) => void;
  reject: (error: unknown) => void;
}

export class RateLimitEventBatcher {
  private pending: PendingEvent[] = [];

  /** `windowMilliseconds` is the one window length every subject counted here shares. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly windowMilliseconds: number,
  ) {}

  /** Counts one event for each of `subjects` (distinct); answers each subject's state with this event counted. */
  count(subjects: readonly string[]): Promise<Map<string, CounterState>> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ subjects, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const events = new Map<string, number>();
    for (const { subjects } of batch) for (const subject of subjects) events.set(subject, (events.get(subject) ?? 0) + 1);
    let totals: Map<string, CounterState>;
    try {
      totals = await countRateLimitEvents(this.db, events, Date.now(), this.windowMilliseconds);
    } catch (error) {
      for (const event of batch) event.reject(error);
      return;
    }
    // Walked in arrival order: a subject's earlier events in this batch hold the lower counts.
    const counted = new Map<string, number>();
    for (const { subjects, resolve } of batch) {
      const states = new Map<string, CounterState>();
      for (const subject of subjects) {
        const total = totals.get(subject);
        if (total === undefined) continue;
        const position = (counted.get(subject) ?? 0) + 1;
        counted.set(subject, position);
        states.set(subject, { count: total.count - (events.get(subject) ?? 0) + position, windowStartedAt: total.windowStartedAt });
      }
      resolve(states);
    }
  }
}
