// What every use case receives: configuration and the shared services. Built once per app.
import type { EventBus } from '../components/events/event-bus.js';
import type { Config } from './config.js';
import type { Database } from './neo4j/database.js';
import type { Logger } from './logger.js';
import type { RateLimits } from './rate-limits.js';

export interface AppContext {
  config: Config;
  db: Database;
  log: Logger;
  limits: RateLimits;
  /** Committed notifications, fanned out to this instance's listeners (and others' through Redis). */
  events: EventBus;
}
