/**
 * Runs tasks with at most `limit` in flight and answers how each ended, in the order given. Unlike
 * a fan-out that stops at the first failure, every task has ended when it answers, so a caller
 * that must undo a batch (remove the files it wrote) knows everything the batch did.
 */
export async function settleAll<Result>(
  tasks: ReadonlyArray<() => Promise<Result>>,
  limit: number,
): Promise<Array<PromiseSettledResult<Result>>> {
  const outcomes = new Array<PromiseSettledResult<Result>>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      try {
        outcomes[index] = { status: 'fulfilled', value: await tasks[index]!() };
      } catch (reason) {
        outcomes[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return outcomes;
}
