/**
 * `indexOf` for parsers that walk a body forward looking for several tags: it remembers where each
 * tag was last found, so a tag missing from a long body is searched for once, not once per step,
 * and a malformed body still costs linear time.
 */
export class ForwardSearch {
  private readonly found = new Map<string, { from: number; index: number }>();

  constructor(readonly text: string) {}

  /** The first `token` at or after `from`; -1 when there is none. Calls must not move `from` backwards. */
  indexOf(token: string, from: number): number {
    const cached = this.found.get(token);
    if (cached !== undefined && from >= cached.from && (cached.index === -1 || cached.index >= from)) return cached.index;
    const index = this.text.indexOf(token, from);
    this.found.set(token, { from, index });
    return index;
  }
}

/** The smallest index that is not -1, or -1 when all are. */
export function firstFound(...indexes: number[]): number {
  let first = -1;
  for (const index of indexes) if (index !== -1 && (first === -1 || index < first)) first = index;
  return first;
}
