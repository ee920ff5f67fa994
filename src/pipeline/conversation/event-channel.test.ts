// Proves the EventChannel queue: items pushed before and during iteration arrive once each in push order, and close ends iteration.
import { describe, expect, it } from 'vitest';
import { EventChannel } from './event-channel.js';

async function collect<Item>(iterable: AsyncIterable<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('EventChannel', () => {
  it('delivers items pushed before iteration starts, in push order, and ends on close', async () => {
    const channel = new EventChannel<number>();
    channel.push(1);
    channel.push(2);
    channel.push(3);
    channel.close();
    expect(await collect(channel)).toEqual([1, 2, 3]);
  });

  it('delivers items pushed while a consumer is waiting, after the ones already queued', async () => {
    const channel = new EventChannel<string>();
    channel.push('before');
    const received: string[] = [];
    const consumed = (async () => {
      for await (const item of channel) {
        received.push(item);
        // Each item the consumer sees makes the producer push the next one, so pushes happen mid-iteration.
        if (item === 'before') queueMicrotask(() => channel.push('during-1'));
        if (item === 'during-1') setTimeout(() => channel.push('during-2'), 0);
        if (item === 'during-2') setTimeout(() => channel.close(), 0);
      }
    })();
    await consumed;
    expect(received).toEqual(['before', 'during-1', 'during-2']);
  });

  it('keeps order when several items are pushed in one burst while the consumer waits', async () => {
    const channel = new EventChannel<number>();
    const consumed = collect(channel);
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (let index = 0; index < 5; index += 1) channel.push(index);
    channel.close();
    expect(await consumed).toEqual([0, 1, 2, 3, 4]);
  });

  it('ends a waiting iteration when closed with nothing queued', async () => {
    const channel = new EventChannel<number>();
    const consumed = collect(channel);
    await new Promise((resolve) => setTimeout(resolve, 0));
    channel.close();
    expect(await consumed).toEqual([]);
  });

  it('still delivers items queued before close to a consumer that starts afterwards', async () => {
    const channel = new EventChannel<string>();
    channel.push('last words');
    channel.close();
    const iterator = channel[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ value: 'last words', done: false });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });
});
