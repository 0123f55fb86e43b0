// Tells every instance sharing the database that something a cache holds has changed, so that each
// empties that cache: the session cache (`skein:auth`, session-cache.ts) and the view cache
// (`skein:views`, view-cache.ts) each have a bus of their own. Without REDIS_URL there is only this
// instance and nothing to send; with it, the news goes out on the cache's Redis channel, which every
// instance (this one included, harmlessly) hears. Publishing never fails a request: a lost message
// is logged, and the caches' short TTL bounds what it costs.
import type { Config } from './config.js';
import type { Logger } from './logger.js';

export interface InvalidationBus {
  /**
   * Tells the other instances what to forget (`EVERYTHING` unless the cache says more); resolves
   * when sent, or when sending failed (logged).
   */
  publish(what?: string): Promise<void>;
  /**
   * Calls `listener` with what to forget whenever another instance (or this one, through Redis)
   * published, and with `EVERYTHING` when the subscriber reconnected.
   */
  subscribe(listener: (what: string) => void): void;
  /**
   * Resolves true once every message published before the call has reached the listeners, false
   * when that cannot be known (Redis unreachable): a cached record is then not to be trusted.
   */
  caughtUp(): Promise<boolean>;
  close(): Promise<void>;
}

/** The message that tells a cache to forget everything. */
export const EVERYTHING = '*';
const PUBLISH_TIMEOUT_MS = 1000;
/** How long a cached entry waits to learn whether it was invalidated before it is read afresh. */
const PING_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 10_000;

const singleInstance: InvalidationBus = {
  publish: () => Promise.resolve(),
  subscribe: () => undefined,
  caughtUp: () => Promise.resolve(true),
  close: () => Promise.resolve(),
};

/**
 * The bus of one cache. `channel` is its Redis channel; `cache` names it in connection names and
 * logs (for example `auth`).
 */
export async function createInvalidationBus(
  config: Config,
  log: Logger,
  channel: string,
  cache: string,
): Promise<InvalidationBus> {
  if (!config.redisUrl) return singleInstance;
  const { Redis } = await import('ioredis');
  const options = { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS };
  const publisher = new Redis(config.redisUrl, {
    ...options,
    enableOfflineQueue: false,
    commandTimeout: PUBLISH_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    connectionName: `skein-${cache}-publisher`,
  });
  // The subscriber resubscribes by itself after a reconnect (ioredis autoResubscribe).
  const subscriber = new Redis(config.redisUrl, { ...options, connectionName: `skein-${cache}-subscriber` });
  for (const connection of [publisher, subscriber]) {
    connection.on('error', (error: Error) =>
      log.warn({ err: error }, `Redis connection error (${cache} cache)`),
    );
  }
  const listeners: ((what: string) => void)[] = [];
  subscriber.on('message', (heard: string, what: string) => {
    if (heard === channel) for (const listener of listeners) listener(what);
  });
  // Whatever was published while the subscriber was away is lost to it, so a reconnect counts as
  // an invalidation: nothing kept from before the gap answers after it.
  let connectedOnce = false;
  subscriber.on('ready', () => {
    if (connectedOnce) for (const listener of listeners) listener(EVERYTHING);
    connectedOnce = true;
  });
  try {
    await Promise.all([publisher.connect(), subscriber.connect()]);
    await subscriber.subscribe(channel);
  } catch (error) {
    publisher.disconnect();
    subscriber.disconnect();
    throw new Error(`Redis at REDIS_URL cannot be reached: ${(error as Error).message}`, { cause: error });
  }
  // A PING on the subscribed connection answers after every message Redis queued for it before the
  // PING, so once it answers, every invalidation published before it has been heard (the message
  // listener runs first). The write that published answered only after Redis took the PUBLISH, so
  // a request that follows it on any instance sees it: a delivery that is merely late cannot let a
  // revoked session or a stale view through. Callers of one event-loop turn share one PING.
  // While Redis is away, nothing can be known and nothing waits: the cache is bypassed.
  let sharedPing: Promise<boolean> | null = null;
  const caughtUp = (): Promise<boolean> => {
    if (subscriber.status !== 'ready') return Promise.resolve(false);
    sharedPing ??= new Promise<boolean>((resolve) => {
      setImmediate(() => {
        sharedPing = null;
        const timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
        subscriber
          .ping()
          .then(
            () => resolve(true),
            () => resolve(false),
          )
          .finally(() => clearTimeout(timer));
      });
    });
    return sharedPing;
  };
  return {
    caughtUp,
    publish: async (what = EVERYTHING) => {
      try {
        await publisher.publish(channel, what);
      } catch (error) {
        log.warn({ err: error }, `Could not tell other instances to empty their ${cache} cache`);
      }
    },
    subscribe: (listener) => listeners.push(listener),
    close: async () => {
      await Promise.allSettled([subscriber.quit(), publisher.quit()]);
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
