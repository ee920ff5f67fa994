/**
 * Maps items through an async function with at most `limit` calls in flight, keeping the input
 * order in the results, so a fan-out to an external service (one Moodle call per assignment)
 * never opens more connections at once than the service should have to bear.
 */
export async function mapWithConcurrency<Item, Result>(
  items: readonly Item[],
  limit: number,
  work: (item: Item) => Promise<Result>,
): Promise<Result[]> {
  const results: Result[] = new Array<Result>(items.length);
  let next = 0;
  // Each worker takes the next unclaimed index until none is left; the first failure rejects all.
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as Item);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
