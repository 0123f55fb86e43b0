// What every use case receives: configuration and the shared services. Built once per app.
import type { EventLogServices } from '../components/event-log/event-log-services.js';
import type { SessionCache } from '../components/identity/session-cache.js';
import type { LiveServices } from '../components/live/live-services.js';
import type { Config } from './config.js';
import type { Database } from './neo4j/database.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { ViewCache } from './http/view-cache.js';
import type { RateLimits } from './rate-limits.js';
import type { Signal } from './signal.js';

export interface AppContext {
  config: Config;
  db: Database;
  log: Logger;
  limits: RateLimits;
  /** The event log: the sequencer writers flush after commit, the router feeds follow. */
  events: EventLogServices;
  /** What GET /metrics reports; each module updates its own quantities. */
  metrics: Metrics;
  /** Session records read recently, emptied on every instance when what they grant changes. */
  sessions: SessionCache;
  /** Answers of the cacheable reads, emptied on every instance by any write that may change them. */
  views: ViewCache;
  /** Live news (typing, streamed replies): never in the log, handed to live connections. */
  live: LiveServices;
  /** Deliveries queued outside the event path (redeliveries): this instance's dispatcher claims them. */
  webhookWork: Signal;
}
