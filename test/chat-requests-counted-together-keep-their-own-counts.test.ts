// Proves the rate-limit event batcher on both stores: requests counted in the same turn of the
// event loop share one statement yet each gets the count its own event made, in arrival order;
// the next turn goes on from there; an expired window starts again at one; and when the store
// fails, every request of the batch gets the failure rather than a count.
import { describe, expect, it } from 'vitest';
import { RateLimitEventBatcher } from '../src/store/rate-limit-event-batcher.js';
import { openStore } from '../src/store/store.js';
import { storeSuite } from './support/store-suite.js';
import { createTestDatabase, TEST_DIALECTS } from './support/test-databases.js';

describe.each(TEST_DIALECTS)('chat requests counted together on %s', (dialect) => {
  const suite = storeSuite(dialect);

  it('gives each request of one batch the count its own event made, in the order they arrived', async () => {
    const batcher = new RateLimitEventBatcher(suite.store.db, 60_000);
    const answers = await Promise.all([
      batcher.count(['chat-user:1', 'chat-api-key:10']),
      batcher.count(['chat-user:1', 'chat-api-key:11']),
      batcher.count(['chat-user:1']),
      batcher.count(['chat-user:2']),
    ]);
    expect(answers.map((states) => states.get('chat-user:1')?.count)).toEqual([1, 2, 3, undefined]);
    expect(answers[0].get('chat-api-key:10')?.count).toBe(1);
    expect(answers[1].get('chat-api-key:11')?.count).toBe(1);
    expect(answers[3].get('chat-user:2')?.count).toBe(1);
    const windowStart = answers[0].get('chat-user:1')?.windowStartedAt;
    expect(answers[2].get('chat-user:1')?.windowStartedAt).toBe(windowStart);

    const next = await batcher.count(['chat-user:1']);
    expect(next.get('chat-user:1')).toEqual({ count: 4, windowStartedAt: windowStart });
  });

  it('starts an expired window again at one, for every event of the batch in turn', async () => {
    const batcher = new RateLimitEventBatcher(suite.store.db, 50);
    await batcher.count(['chat-user:3']);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const answers = await Promise.all([batcher.count(['chat-user:3']), batcher.count(['chat-user:3'])]);
    expect(answers.map((states) => states.get('chat-user:3')?.count)).toEqual([1, 2]);
  });

  it('fails every request of a batch when the store fails', async () => {
    const broken = await createTestDatabase(dialect);
    const brokenStore = await openStore({ databaseUrl: broken.databaseUrl, dataDirectory: broken.dataDirectory, poolSize: 1 });
    await brokenStore.close();
    try {
      const batcher = new RateLimitEventBatcher(brokenStore.db, 60_000);
      const outcomes = await Promise.allSettled([batcher.count(['chat-user:1']), batcher.count(['chat-user:2'])]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    } finally {
      await broken.drop();
    }
  });
});
