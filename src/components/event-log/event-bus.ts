// Hands each sequencer round to every instance sharing the database (this one included): in-process
// without REDIS_URL, through Redis pub/sub with it. Its listeners are the instance's event router
// (sockets, subscriptions) and webhook planner.
// The bus carries news, not truth: the event log in Neo4j is the record. A listener that misses a
// round (a dropped Redis connection) notices the gap at the next round or poll and reads it from
// the log (event-router.ts).
import { EventEmitter } from 'node:events';
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import type { SequencedRound } from './event-log.js';

export type RoundListener = (round: SequencedRound) => void;

export interface EventBus {
  /** Tells every instance (this one included) about a round that has just been committed. */
  publish(round: SequencedRound): Promise<void>;
  /** Listens for rounds; returns the function that stops listening. */
  subscribe(listener: RoundListener): () => void;
  close(): Promise<void>;
}

const ROUND = 'round';

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
