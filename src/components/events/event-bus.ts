// Hands committed notifications to whoever listens on this instance (WebSocket connections, GraphQL
// subscriptions, the webhook dispatcher). With REDIS_URL set, publishing goes through Redis pub/sub
// so every instance sharing the database hears every event; without it, only this process does.
// The bus carries news, not truth: the outbox in Neo4j is the record, and listeners that miss a
// message (a dropped Redis connection, a reconnecting socket) catch up from it by sequence number.
import { EventEmitter } from 'node:events';
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import type { StoredNotification } from './notification-event.js';

export type NotificationListener = (notification: StoredNotification) => void;

export interface EventBus {
  /** Tells every instance (this one included) about notifications that have just been committed. */
  publish(notifications: StoredNotification[]): Promise<void>;
  /** Listens for one user's notifications; returns the function that stops listening. */
  subscribe(uid: string, listener: NotificationListener): () => void;
  /** Listens for every notification, whoever it is for (the webhook dispatcher's wake-up call). */
  subscribeAll(listener: NotificationListener): () => void;
  close(): Promise<void>;
}

const ALL = '*';

/** Delivers within this process; also the local half of the Redis bus. */
export class LocalEventBus implements EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per open socket or subscription: thousands are normal, not a leak.
    this.emitter.setMaxListeners(0);
  }

  publish(notifications: StoredNotification[]): Promise<void> {
    this.deliver(notifications);
    return Promise.resolve();
  }

  /** Hands notifications to this process's listeners. */
  deliver(notifications: StoredNotification[]): void {
    for (const notification of notifications) {
      this.emitter.emit(notification.uid, notification);
      this.emitter.emit(ALL, notification);
    }
  }

  subscribe(uid: string, listener: NotificationListener): () => void {
    this.emitter.on(uid, listener);
    return () => this.emitter.off(uid, listener);
  }

  subscribeAll(listener: NotificationListener): () => void {
    return this.subscribe(ALL, listener);
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
