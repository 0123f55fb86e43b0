// When Neo4j rolls a transaction back for a transient reason (a deadlock it broke, a lock wait that
// timed out, a cluster leader that moved), the work is run again here, for every read and write.
// The driver's own executeWrite waits a fixed second (with jitter) before its first retry, so a
// broken deadlock between two posts cost one of them more than a second. Deadlocks clear in
// milliseconds, so the first waits are short and
// randomised (two rivals do not meet again in step); they double up to a second, so a leader
// election, which takes seconds, is still waited out within the budget.
import neo4j from 'neo4j-driver';

const FIRST_DELAY_MS = 10;
const MAX_DELAY_MS = 1000;
/** How long a transaction keeps being retried, from its first start (the driver's default is 30 s). */
const RETRY_BUDGET_MS = 15_000;

/**
 * Runs `attempt` until it succeeds, fails for a reason that is not transient, or the budget is
 * spent. `retried` is told of each transient failure that is about to be retried.
 */
export async function withTransientRetry<T>(
  attempt: () => Promise<T>,
  retried: (error: unknown) => void = () => undefined,
): Promise<T> {
  const started = Date.now();
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const delay = retryDelayMs(tries);
      if (!neo4j.isRetryableError(error) || Date.now() - started + delay > RETRY_BUDGET_MS) throw error;
      retried(error);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** 10, 20, 40 … ms up to a second, each scaled by a random factor between 0.5 and 1.5. */
function retryDelayMs(tries: number): number {
  const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (tries - 1));
  return Math.round(base * (0.5 + Math.random()));
}
