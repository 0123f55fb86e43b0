// A bound on how many handlers run at once. Waiters get their slot in the order they asked, so
// handlers start in the order their events arrived.

export class Slots {
  private running = 0;
  private waiters: ((granted: boolean) => void)[] = [];
  private closed = false;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('concurrency must be an integer ≥ 1');
  }

  /** Resolves true with a slot held (give it back with release()), or false once close() was called. */
  acquire(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.running < this.limit) {
      this.running += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    // The slot passes straight to the next waiter, so `running` stays the same.
    if (next) next(true);
    else this.running -= 1;
  }

  /** No slot is granted any more; those waiting get false. Slots held are still released as usual. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter(false);
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
