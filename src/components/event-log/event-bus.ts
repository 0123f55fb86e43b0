// Hands each sequencer round to every instance sharing the database (this one included): in-process
// without REDIS_URL, through Redis pub/sub with it. Its listeners are the instance's event router
// (sockets, subscriptions) and webhook planner.
// It also carries live news (typing, streamed chunks: src/components/live/), which has no cursor and
// is never in the log: on the same subscriber connection, so an instance hears rounds and live news
// in the one order Redis published them.
// The bus carries news, not truth: the event log in Neo4j is the record. A listener that misses a
// round (a dropped Redis connection) notices the gap at the next round or poll and reads it from
// the log (event-router.ts).
import { EventEmitter } from 'node:events';
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import type { SequencedRound } from './event-log.js';

export type RoundListener = (round: SequencedRound) => void;
/** Live news as published: a plain JSON object, checked by its listener. */
export type LiveListener = (news: unknown) => void;

export interface EventBus {
  /** Tells every instance (this one included) about a round that has just been committed. */
  publish(round: SequencedRound): Promise<void>;
  /** Listens for rounds; returns the function that stops listening. */
  subscribe(listener: RoundListener): () => void;
  /** Tells every instance (this one included) some live news; never throws (lost news is tolerated). */
  publishLive(news: object): Promise<void>;
  subscribeLive(listener: LiveListener): () => void;
  close(): Promise<void>;
}

const ROUND = 'round';
const LIVE = 'live';

/** Delivers within this process; also the local half of the Redis bus. */
export class LocalEventBus implements EventBus {
  private readonly emitter = new EventEmitter();

  publish(round: SequencedRound): Promise<void> {
    this.deliver(round);
    return Promise.resolve();
  }

  /** Hands a round to this process's listeners. */
  deliver(round: SequencedRound): void {
    this.emitter.emit(ROUND, round);
  }

  subscribe(listener: RoundListener): () => void {
    this.emitter.on(ROUND, listener);
    return () => this.emitter.off(ROUND, listener);
  }

  publishLive(news: object): Promise<void> {
    this.deliverLive(news);
    return Promise.resolve();
  }

  deliverLive(news: unknown): void {
    this.emitter.emit(LIVE, news);
  }

  subscribeLive(listener: LiveListener): () => void {
    this.emitter.on(LIVE, listener);
    return () => this.emitter.off(LIVE, listener);
  }

  close(): Promise<void> {
    this.emitter.removeAllListeners();
    return Promise.resolve();
  }
}

export async function createEventBus(config: Config, log: Logger): Promise<EventBus> {
  if (!config.redisUrl) return new LocalEventBus();
  const { RedisEventBus } = await import('./redis-event-bus.js');
  return RedisEventBus.connect(config.redisUrl, log);
}
