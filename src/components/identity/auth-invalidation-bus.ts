// Tells every instance sharing the database that what sessions grant has changed, so that each
// empties its session cache (session-cache.ts). Without REDIS_URL there is only this instance and
// nothing to send; with it, the news goes out on the Redis channel `skein:auth`, which every
// instance (this one included, harmlessly) hears. Publishing never fails a request: a lost message
// is logged, and the cache's short TTL bounds what it costs.
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';

export interface AuthInvalidationBus {
  /** Tells the other instances; resolves when sent, or when sending failed (logged). */
  publish(): Promise<void>;
  /** Calls `listener` whenever another instance (or this one, through Redis) published. */
  subscribe(listener: () => void): void;
  /**
   * Resolves true once every message published before the call has reached the listeners, false
   * when that cannot be known (Redis unreachable): a cached record is then not to be trusted.
   */
  caughtUp(): Promise<boolean>;
  close(): Promise<void>;
}

export const AUTH_CHANNEL = 'skein:auth';
const PUBLISH_TIMEOUT_MS = 1000;
/** How long a cached session waits to learn whether it was invalidated before it is read afresh. */
const PING_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 10_000;

const singleInstance: AuthInvalidationBus = {
  publish: () => Promise.resolve(),
  subscribe: () => undefined,
  caughtUp: () => Promise.resolve(true),
  close: () => Promise.resolve(),
};

export async function createAuthInvalidationBus(config: Config, log: Logger): Promise<AuthInvalidationBus> {
  if (!config.redisUrl) return singleInstance;
  const { Redis } = await import('ioredis');
  const options = { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS };
  const publisher = new Redis(config.redisUrl, {
    ...options,
    enableOfflineQueue: false,
    commandTimeout: PUBLISH_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    connectionName: 'skein-auth-publisher',
  });
  // The subscriber resubscribes by itself after a reconnect (ioredis autoResubscribe).
  const subscriber = new Redis(config.redisUrl, { ...options, connectionName: 'skein-auth-subscriber' });
  for (const connection of [publisher, subscriber]) {
    connection.on('error', (error: Error) => log.warn({ err: error }, 'Redis connection error (auth cache)'));
  }
  const listeners: (() => void)[] = [];
  subscriber.on('message', (channel: string) => {
    if (channel === AUTH_CHANNEL) for (const listener of listeners) listener();
  });
  try {
    await Promise.all([publisher.connect(), subscriber.connect()]);
    await subscriber.subscribe(AUTH_CHANNEL);
  } catch (error) {
    publisher.disconnect();
    subscriber.disconnect();
    throw new Error(`Redis at REDIS_URL cannot be reached: ${(error as Error).message}`, { cause: error });
  }
  // A PING on the subscribed connection answers after every message Redis queued for it before the
  // PING, so once it answers, every invalidation published before it has been heard (the message
  // listener runs first). The write that published answered only after Redis took the PUBLISH, so
  // a request that follows it on any instance sees it: a delivery that is merely late cannot let a
  // revoked session through. Callers of one event-loop turn share one PING.
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
    publish: async () => {
      try {
        await publisher.publish(AUTH_CHANNEL, '1');
      } catch (error) {
        log.warn({ err: error }, 'Could not tell other instances to drop cached sessions');
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
