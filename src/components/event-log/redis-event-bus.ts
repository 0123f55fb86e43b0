// The EventBus across instances (REDIS_URL): publishing sends each sequencer round as one JSON
// object on the Redis channel `skein:events`; every instance, this one included, hears it on its
// subscriber connection and hands it to its own listeners. So a round reaches local listeners once,
// through Redis, like everyone else's.
//
// Redis carries news, not truth (event-bus.ts): when publishing fails (Redis down, or slower than
// PUBLISH_TIMEOUT_MS) the failure is logged, this instance's listeners get the round directly, and
// the request that caused it still succeeds. Other instances miss it live and read it from the
// event log at their next round or poll (event-router.ts). Should a timed-out publish reach Redis
// after all, local listeners hear it twice; the router drops what it has already passed.
import { Redis } from 'ioredis';
import type { Logger } from '../../platform/logger.js';
import { LocalEventBus, type EventBus, type LiveListener, type RoundListener } from './event-bus.js';
import type { SequencedRound } from './event-log.js';

export const REDIS_CHANNEL = 'skein:events';
/** Live news (event-bus.ts): typing and streamed chunks, heard on the same subscriber connection. */
export const LIVE_CHANNEL = 'skein:live';
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
      else if (channel === LIVE_CHANNEL) bus.receiveLive(text);
    });
    try {
      await Promise.all([publisher.connect(), subscriber.connect()]);
      await subscriber.subscribe(REDIS_CHANNEL, LIVE_CHANNEL);
    } catch (error) {
      publisher.disconnect();
      subscriber.disconnect();
      throw new Error(`Redis at REDIS_URL cannot be reached: ${(error as Error).message}`, { cause: error });
    }
    return bus;
  }

  async publish(round: SequencedRound): Promise<void> {
    try {
      await this.publisher.publish(REDIS_CHANNEL, JSON.stringify(round));
    } catch (error) {
      this.log.warn(
        { err: error, to: round.to },
        'Publishing to Redis failed; delivering on this instance only, others read the event log',
      );
      this.local.deliver(round);
    }
  }

  async publishLive(news: object): Promise<void> {
    try {
      await this.publisher.publish(LIVE_CHANNEL, JSON.stringify(news));
    } catch (error) {
      this.log.warn({ err: error }, 'Publishing live news to Redis failed; told on this instance only');
      this.local.deliverLive(news);
    }
  }

  private receiveLive(text: string): void {
    try {
      this.local.deliverLive(JSON.parse(text));
    } catch {
      this.log.warn('Ignored a malformed message on the Redis live channel');
    }
  }

  subscribeLive(listener: LiveListener): () => void {
    return this.local.subscribeLive(listener);
  }

  private receive(text: string): void {
    let round: unknown;
    try {
      round = JSON.parse(text);
    } catch {
      round = undefined;
    }
    if (!isRound(round)) {
      this.log.warn('Ignored a malformed message on the Redis event channel');
      return;
    }
    this.local.deliver(round);
  }

  subscribe(listener: RoundListener): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.quit(), this.publisher.quit()]);
    this.subscriber.disconnect();
    this.publisher.disconnect();
    await this.local.close();
  }
}

function isRound(value: unknown): value is SequencedRound {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.from === 'number' &&
    typeof r.to === 'number' &&
    Array.isArray(r.events) &&
    r.events.every(
      (e) => typeof e === 'object' && e !== null && typeof (e as { seq?: unknown }).seq === 'number',
    )
  );
}
