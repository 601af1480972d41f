/** One piece of work and when it is due (ms since the epoch, on the Clock). */
export interface Due {
  at: number;
  /** Runs it; answers the ms until it is due again, or `null` when it is over. */
  run: () => Promise<number | null>;
}

/**
 * The timer engine's work by key, earliest first: what is due next, and what is due by now, are found
 * without reading every piece (a store of 10,000 watches checked every minute asks both after each of
 * 167 checks a second). A binary heap ordered by due time, beside a map of each key's current piece; a
 * piece replaced or deleted stays in the heap until it comes up, and is skipped then (the heap is built
 * anew when such pieces outnumber the live ones).
 */
export class DueQueue {
  private readonly current = new Map<string, Due>();
  private heap: { key: string; due: Due }[] = [];

  get size(): number {
    return this.current.size;
  }

  has(key: string): boolean {
    return this.current.has(key);
  }

  keys(): IterableIterator<string> {
    return this.current.keys();
  }

  set(key: string, due: Due): void {
    this.current.set(key, due);
    this.push({ key, due });
    if (this.heap.length > 2 * this.current.size + 1000) this.rebuild();
  }

  delete(key: string): void {
    this.current.delete(key);
  }

  clear(): void {
    this.current.clear();
    this.heap = [];
  }

  /** When the earliest piece is due, `Infinity` when there is none. */
  nextAt(): number {
    return this.top()?.due.at ?? Infinity;
  }

  /** Takes the earliest piece out if it is due by `now`: its key and itself. */
  takeDue(now: number): { key: string; due: Due } | undefined {
    const top = this.top();
    if (top === undefined || top.due.at > now) return undefined;
    this.pop();
    this.current.delete(top.key);
    return top;
  }

  /** The earliest live entry, the stale ones above it dropped. */
  private top(): { key: string; due: Due } | undefined {
    while (this.heap.length > 0) {
      const first = this.heap[0]!;
      if (this.current.get(first.key) === first.due) return first;
      this.pop();
    }
    return undefined;
  }

  private rebuild(): void {
    this.heap = [];
    for (const [key, due] of this.current) this.push({ key, due });
  }

  private push(entry: { key: string; due: Due }): void {
    const heap = this.heap;
    heap.push(entry);
    for (let n = heap.length - 1; n > 0;) {
      const parent = (n - 1) >> 1;
      if (heap[parent]!.due.at <= heap[n]!.due.at) break;
      [heap[parent], heap[n]] = [heap[n]!, heap[parent]!];
      n = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    for (let n = 0; ;) {
      const left = 2 * n + 1;
      const right = left + 1;
      let least = n;
      if (left < heap.length && heap[left]!.due.at < heap[least]!.due.at) least = left;
      if (right < heap.length && heap[right]!.due.at < heap[least]!.due.at) least = right;
      if (least === n) return;
      [heap[least], heap[n]] = [heap[n]!, heap[least]!];
      n = least;
    }
  }
}
