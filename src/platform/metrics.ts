// What an operator scrapes (Prometheus text format, prom-client): requests, Neo4j transactions,
// open sockets, events numbered and delivered with their lag, webhook attempts and queue depth,
// rate-limit refusals. One registry per app (tests run several apps in one process); the modules
// that own each quantity update it through AppContext.metrics. GET /metrics serves it
// (platform/http/metrics.rest.ts), only with SKEIN_METRICS_TOKEN.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  neo4jTransactions: Histogram<'mode' | 'outcome'>;
  /** Transactions run again after Neo4j rolled them back for a transient reason (a deadlock). */
  neo4jRetries: Counter<'mode'>;
  neo4jSessionsInUse: Gauge<'mode'>;
  openFeeds: Gauge;
  /** Posts waiting for their lane to let them write (components/messages/post-lanes.ts). */
  postsWaiting: Gauge<'lane'>;
  eventsNumbered: Counter;
  eventsDelivered: Counter<'transport'>;
  deliveryLag: Histogram<'transport'>;
  webhookAttempts: Counter<'outcome'>;
  rateLimitRefusals: Counter<'route'>;
  /** Causal bookmarks read from Redis at a request's start (routing URI with Redis only). */
  bookmarkLookups: Counter<'outcome'>;
  /** Causal bookmarks of a committed write recorded in Redis for the request's credential. */
  bookmarkRecords: Counter<'outcome'>;
  /** Cacheable reads answered from the view cache (hit) or from Neo4j (miss). */
  viewCacheLookups: Counter<'outcome'>;
  /** How many webhook deliveries wait, read at each scrape through webhookQueueCounter. */
  webhookQueueDepth: Gauge;
  /** Set by the webhook dispatcher: counts the pending deliveries (null while none runs). */
  webhookQueueCounter: (() => Promise<number>) | null;
}

export function createMetrics(options: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'skein' });
  // Process metrics (CPU, memory, event-loop lag) for the service process; off in tests. The lag is
  // sampled every 100 ms, not every 10 (prom-client's default): a timer a hundred times a second
  // was half of an idle service's CPU, and a stall worth alerting on lasts longer than 100 ms.
  if (options.defaults ?? true)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({
      name: 'skein_http_requests_total',
      help: 'HTTP requests answered, by route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'skein_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, by route template.',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    neo4jTransactions: new Histogram({
      name: 'skein_neo4j_transaction_duration_seconds',
      help: 'Neo4j transactions (retries included), by mode and outcome.',
      labelNames: ['mode', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    neo4jRetries: new Counter({
      name: 'skein_neo4j_transient_retries_total',
      help: 'Transactions run again after Neo4j rolled them back for a transient reason (a deadlock, a lock timeout, a leader switch), by mode.',
      labelNames: ['mode'],
      registers,
    }),
    neo4jSessionsInUse: new Gauge({
      name: 'skein_neo4j_sessions_in_use',
      help: 'Neo4j sessions open now (each holds a pooled connection while it runs).',
      labelNames: ['mode'],
      registers,
    }),
    postsWaiting: new Gauge({
      name: 'skein_posts_waiting',
      help: 'Posts waiting on this instance for their lane (channel posts, direct posts) to let them write; at most SKEIN_POST_WRITERS of each write at once.',
      labelNames: ['lane'],
      registers,
    }),
    openFeeds: new Gauge({
      name: 'skein_realtime_open_feeds',
      help: 'Open notification sockets and GraphQL subscriptions on this instance.',
      registers,
    }),
    eventsNumbered: new Counter({
      name: 'skein_events_numbered_total',
      help: 'Events numbered into the log by this instance (one per change and stream).',
      registers,
    }),
    eventsDelivered: new Counter({
      name: 'skein_events_delivered_total',
      help: 'Events handed to clients by this instance.',
      labelNames: ['transport'],
      registers,
    }),
    deliveryLag: new Histogram({
      name: 'skein_event_delivery_lag_seconds',
      help: 'Time from an event being recorded to it being handed to a client.',
      labelNames: ['transport'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'skein_webhook_attempts_total',
      help: 'Webhook attempts by outcome: delivered, pending (a retry follows), failed, disabled, dropped.',
      labelNames: ['outcome'],
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'skein_rate_limit_refusals_total',
      help: 'Requests refused with 429, by route template.',
      labelNames: ['route'],
      registers,
    }),
    bookmarkLookups: new Counter({
      name: 'skein_neo4j_bookmark_lookups_total',
      help: "Requests that read their credential's causal bookmarks from Redis (neo4j:// URI with REDIS_URL only): found, none, error.",
      labelNames: ['outcome'],
      registers,
    }),
    bookmarkRecords: new Counter({
      name: 'skein_neo4j_bookmark_records_total',
      help: 'Committed writes whose bookmarks were recorded in Redis for the next requests of their credential: ok, error.',
      labelNames: ['outcome'],
      registers,
    }),
    viewCacheLookups: new Counter({
      name: 'skein_view_cache_lookups_total',
      help: 'Reads of cacheable routes (a message, a page, a thread, a search) answered from the view cache (hit) or from Neo4j (miss).',
      labelNames: ['outcome'],
      registers,
    }),
    webhookQueueDepth: new Gauge({
      name: 'skein_webhook_queue_depth',
      help: 'Webhook deliveries pending (due now or waiting for a retry), read from Neo4j at each scrape.',
      registers,
      // At the scrape, not on a timer: an idle service runs no statement for a metric nobody reads.
      // A count that fails keeps the last value rather than failing the whole scrape.
      async collect() {
        const pending = await metrics.webhookQueueCounter?.().catch(() => null);
        if (typeof pending === 'number') this.set(pending);
      },
    }),
    webhookQueueCounter: null,
  };
  return metrics;
}
