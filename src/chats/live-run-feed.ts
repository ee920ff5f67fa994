/**
 * The in-memory fan-out of one chat run's events to the clients of this process that follow it
 * live (the request that started it). A follower that goes away only stops following: the run
 * goes on, because it belongs to its chat, not to a connection.
 */
import type { PipelineEvent } from '../pipeline/conversation/events.js';

export type FeedItem = { kind: 'event'; event: PipelineEvent } | { kind: 'error'; error: unknown } | { kind: 'end' };

type Subscriber = (item: FeedItem) => void;

export class LiveRunFeed {
  private readonly subscribers = new Set<Subscriber>();
  private ended: FeedItem | undefined;

  get followers(): number {
    return this.subscribers.size;
  }

  publish(item: FeedItem): void {
    if (this.ended !== undefined) return;
    if (item.kind !== 'event') this.ended = item;
    for (const subscriber of this.subscribers) subscriber(item);
  }

  /** Follows from now on; subscribed at once, so that no event published after this call is missed. */
  follow(): AsyncGenerator<PipelineEvent> {
    const queue: FeedItem[] = this.ended === undefined ? [] : [this.ended];
    let wake: (() => void) | undefined;
    const subscriber: Subscriber = (item) => {
      queue.push(item);
      wake?.();
    };
    this.subscribers.add(subscriber);
    const subscribers = this.subscribers;
    return (async function* followed(): AsyncGenerator<PipelineEvent> {
      try {
        for (;;) {
          while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const item = queue.shift() as FeedItem;
          if (item.kind === 'end') return;
          if (item.kind === 'error') throw item.error;
          yield item.event;
        }
      } finally {
        subscribers.delete(subscriber);
      }
    })();
  }
}
