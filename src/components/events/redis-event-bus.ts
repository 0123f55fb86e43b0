// The EventBus across instances (REDIS_URL): publishing sends each batch of committed notifications
// as one JSON array on the Redis channel `skein:notifications`; every instance, this one included,
// hears it on its subscriber connection and hands it to its own listeners. So a publication reaches
// local listeners once, through Redis, like everyone else's.
//
// Redis carries news, not truth (event-bus.ts): when publishing fails (Redis down, or slower than
// PUBLISH_TIMEOUT_MS) the failure is logged, this instance's listeners get the batch directly, and
// the request that caused it still succeeds. Listeners on other instances miss it live and catch up
// from the outbox: a feed reads it when the next notification shows a gap, a client that reconnects
// gets it with ?since, and webhook deliveries never depended on the bus. Should a timed-out publish
// reach Redis after all, local listeners hear it twice; feeds drop what they already handed out.
import { Redis } from 'ioredis';
import type { Logger } from '../../platform/logger.js';
import { LocalEventBus, type EventBus, type NotificationListener } from './event-bus.js';
import type { StoredNotification } from './notification-event.js';

export const REDIS_CHANNEL = 'skein:notifications';
const PUBLISH_TIMEOUT_MS = 2000;
const CONNECT_TIMEOUT_MS = 10_000;

export class RedisEventBus implements EventBus {
  private readonly local = new LocalEventBus();

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly log: Logger,
  ) {}

  /** Connects both connections; fails (naming REDIS_URL, never its value) when Redis cannot be reached. */
  static async connect(url: string, log: Logger): Promise<EventBus> {
    const options = { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS };
    // Publishing must never wait for a reconnect: no offline queue, a bounded command time.
    const publisher = new Redis(url, {
      ...options,
      enableOfflineQueue: false,
      commandTimeout: PUBLISH_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      connectionName: 'skein-publisher',
    });
    // The subscriber resubscribes by itself after a reconnect (ioredis autoResubscribe).
    const subscriber = new Redis(url, { ...options, connectionName: 'skein-subscriber' });
    const bus = new RedisEventBus(publisher, subscriber, log);
    for (const [name, connection] of [
      ['publisher', publisher],
      ['subscriber', subscriber],
    ] as const) {
      connection.on('error', (error: Error) =>
        log.warn({ err: error, connection: name }, 'Redis connection error'),
      );
    }
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === REDIS_CHANNEL) bus.receive(text);
    });
    try {
      await Promise.all([publisher.connect(), subscriber.connect()]);
      await subscriber.subscribe(REDIS_CHANNEL);
    } catch (error) {
      publisher.disconnect();
      subscriber.disconnect();
      throw new Error(`Redis at REDIS_URL cannot be reached: ${(error as Error).message}`, { cause: error });
    }
    return bus;
  }

  async publish(notifications: StoredNotification[]): Promise<void> {
    if (notifications.length === 0) return;
    try {
      await this.publisher.publish(REDIS_CHANNEL, JSON.stringify(notifications));
    } catch (error) {
      this.log.warn(
        { err: error, count: notifications.length },
        'Publishing to Redis failed; delivering on this instance only, others catch up from the outbox',
      );
      this.local.deliver(notifications);
    }
  }

  private receive(text: string): void {
    let batch: unknown;
    try {
      batch = JSON.parse(text);
    } catch {
      batch = undefined;
    }
    if (!Array.isArray(batch) || !batch.every(isStoredNotification)) {
      this.log.warn('Ignored a malformed message on the Redis notification channel');
      return;
    }
    this.local.deliver(batch);
  }

  subscribe(uid: string, listener: NotificationListener): () => void {
    return this.local.subscribe(uid, listener);
  }

  subscribeAll(listener: NotificationListener): () => void {
    return this.local.subscribeAll(listener);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
    this.subscriber.disconnect();
    this.publisher.disconnect();
    await this.local.close();
  }
}

function isStoredNotification(value: unknown): value is StoredNotification {
  if (typeof value !== 'object' || value === null) return false;
  const n = value as Record<string, unknown>;
  return (
    typeof n.id === 'string' &&
    typeof n.uid === 'string' &&
    typeof n.seq === 'number' &&
    typeof n.created_at === 'string' &&
    typeof n.event === 'object' &&
    n.event !== null
  );
}
