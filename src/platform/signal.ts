// A wake-up call inside one process: notify() reaches every listener at once, and carries nothing.
// Used where a use case makes work for a background loop of the same instance (a delivery queued
// again by hand, for the webhook dispatcher) that would otherwise wait for the loop's next poll.
export class Signal {
  private readonly listeners = new Set<() => void>();

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  /** Answers the function that removes the listener. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
