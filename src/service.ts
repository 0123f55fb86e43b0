// The whole service as one object: Neo4j (embedded or external), schema, bootstrap admin, HTTP.
// start.ts runs it as a process; tests run it in-process to check restarts.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { startLive } from './components/live/live-services.js';
import { startEventLog } from './components/event-log/event-log-services.js';
import { Signal } from './platform/signal.js';
import { startWebhookDispatcher } from './components/webhooks/webhook-dispatcher.js';
import { bootstrapAdmin } from './components/admin/administer-users.js';
import { warmUp } from './components/warm-up/warm-up.js';
import { SessionCache } from './components/identity/session-cache.js';
import { ViewCache } from './platform/http/view-cache.js';
import type { Config } from './platform/config.js';
import type { AppContext } from './platform/context.js';
import type { Logger } from './platform/logger.js';
import { CausalBookmarks } from './platform/neo4j/causal-bookmarks.js';
import { Database, type Neo4jTarget } from './platform/neo4j/database.js';
import {
  embeddedOptionsOf,
  startEmbeddedNeo4j,
  type EmbeddedNeo4j,
} from './platform/neo4j/embedded-neo4j.js';
import { applySchema } from './platform/neo4j/schema-setup.js';
import { createMetrics } from './platform/metrics.js';
import { createRateLimits } from './platform/rate-limits.js';

export interface RunningService {
  url: string;
  ctx: AppContext;
  stop(): Promise<void>;
  /** Ends the embedded Neo4j at once (SIGKILL), when stop() overran; nothing with NEO4J_URI. */
  kill(): void;
}

export interface ServiceOptions {
  /**
   * Called when the service cannot go on (its embedded Neo4j died). The process entry exits so that
   * a supervisor restarts it; Neo4j recovers its store from the transaction log on the next start.
   */
  onFatal?: (reason: string) => void;
}

export async function runService(
  config: Config,
  log: Logger,
  options: ServiceOptions = {},
): Promise<RunningService> {
  let embedded: EmbeddedNeo4j | undefined;
  let target: Neo4jTarget;
  // Once stopping, Neo4j going away is expected: a process manager that signals every process of
  // the service at once (systemd's default KillMode) stops it beside us.
  let stopping = false;
  if (config.neo4j.uri) {
    target = {
      uri: config.neo4j.uri,
      user: config.neo4j.user,
      password: config.neo4j.password ?? '',
      database: config.neo4j.database,
    };
  } else {
    embedded = await startEmbeddedNeo4j({
      ...embeddedOptionsOf(config, log),
      onUnexpectedExit: (code, signal) => {
        if (!stopping)
          options.onFatal?.(`embedded Neo4j exited unexpectedly (code ${code}, signal ${signal})`);
      },
    });
    target = embedded.target;
  }
  const db = Database.connect(target);
  try {
    await db.verify();
    await applySchema(db, log);
    const metrics = createMetrics();
    db.instrument(metrics);
    await CausalBookmarks.enable(config, db, log, metrics);
    const events = await startEventLog(config, db, log, metrics);
    const live = await startLive(config, events, log);
    const limits = createRateLimits(config);
    const sessions = await SessionCache.start(config, db, log);
    const views = await ViewCache.start(config, db, log, metrics);
    const ctx: AppContext = {
      config,
      db,
      log,
      limits,
      events,
      metrics,
      sessions,
      views,
      live,
      webhookWork: new Signal(),
    };
    await bootstrapAdmin(ctx);
    const app = await createApp(ctx);
    // Before listening, so that the first requests find their statements planned and compiled.
    const warm = await warmUp(ctx, config.neo4j.warmUpSeconds);
    if (warm.error) log.warn({ rounds: warm.rounds, err: warm.error }, 'the warm-up failed; starting cold');
    else if (warm.rounds > 0) log.info({ rounds: warm.rounds, ms: Math.round(warm.ms) }, 'warmed up');
    const server = createServer(app.express);
    app.attach(server);
    const webhooks = startWebhookDispatcher(ctx);
    server.listen(config.port, config.host);
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const base = config.publicUrl;
    // The URLs a newcomer needs, in the one line everybody reads.
    log.info(
      {
        port,
        neo4j: embedded ? 'embedded' : target.uri,
        docs: `${base}/docs`,
        graphiql: `${base}/graphql`,
        openapi: `${base}/v1/openapi.json`,
      },
      `Skein is listening on ${base} (API reference ${base}/docs, GraphiQL ${base}/graphql)`,
    );
    return {
      url: `http://127.0.0.1:${port}`,
      ctx,
      stop: async () => {
        stopping = true;
        await webhooks.stop();
        // Open WebSockets hold the HTTP server open, so the app closes them while the server drains.
        const drained = closeServer(server);
        await app.close();
        await drained;
        await live.stop();
        await events.stop();
        await limits.close();
        await sessions.close();
        await views.close();
        await db.close();
        await embedded?.stop();
      },
      kill: () => {
        stopping = true;
        embedded?.kill();
      },
    };
  } catch (error) {
    await db.close();
    await embedded?.stop();
    throw error;
  }
}

/** Stops accepting connections and waits for in-flight requests; idle keep-alive sockets close now. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Requests still running after 10 s are cut off rather than holding shutdown forever.
    setTimeout(() => server.closeAllConnections(), 10_000).unref();
  });
}
