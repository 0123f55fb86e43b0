// What the loopback stand-ins for outside services (SMTP, Twilio) receive, and a wait for one
// arrival: woken by each arrival, and checking again every 200 ms until the deadline.
export class Arrivals<T> {
  readonly items: T[] = [];
  private waiters: (() => void)[] = [];

  add(item: T): void {
    this.items.push(item);
    for (const wake of this.waiters.splice(0)) wake();
  }

  async waitFor(matches: (item: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.items.find(matches);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}
