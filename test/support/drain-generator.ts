/** Runs a generator to its end, collecting what it yields into `into`, and returns what it returns. */
export async function drainGenerator<Yielded, Returned>(generator: AsyncGenerator<Yielded, Returned>, into: Yielded[]): Promise<Returned> {
  for (;;) {
    const next = await generator.next();
    if (next.done) return next.value;
    into.push(next.value);
  }
}
