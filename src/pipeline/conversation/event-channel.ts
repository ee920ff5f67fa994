/** An async queue: producers push while a consumer iterates, so events made by concurrent work stream out as they happen. */
export class EventChannel<Item> implements AsyncIterable<Item> {
  private readonly items: Item[] = [];
  private waiting: (() => void) | undefined;
  private closed = false;

  push(item: Item): void {
    this.items.push(item);
    this.wake();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    for (;;) {
      while (this.items.length > 0) yield this.items.shift()!;
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }
}
