// STUB (to be written): the Redis pub/sub EventBus. See event-bus.ts for the contract.
import type { Logger } from '../../platform/logger.js';
import type { EventBus } from './event-bus.js';

export class RedisEventBus {
  static connect(_url: string, _log: Logger): Promise<EventBus> {
    return Promise.reject(new Error('RedisEventBus is not written yet'));
  }
}
