// Builds Skein's OpenAPI document offline: the app is assembled exactly as the service does (every
// route registers itself in the document as it mounts), with a database handle that never connects,
// and the document is read from GET /v1/openapi.json of that app on a loopback port.
import { SessionCache } from '../../../src/components/identity/session-cache.js';
import { ViewCache } from '../../../src/platform/http/view-cache.js';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../../src/app.js';
import type { LiveServices } from '../../../src/components/live/live-services.js';
import type { EventLogServices } from '../../../src/components/event-log/event-log-services.js';
import { loadConfig } from '../../../src/platform/config.js';
import type { AppContext } from '../../../src/platform/context.js';
import { createLogger } from '../../../src/platform/logger.js';
import { createMetrics } from '../../../src/platform/metrics.js';
import { Database } from '../../../src/platform/neo4j/database.js';
import { createRateLimits } from '../../../src/platform/rate-limits.js';
import { Signal } from '../../../src/platform/signal.js';

/** The server URL written into the document; types do not depend on it. */
const DOCUMENT_SERVER_URL = 'http://localhost:8080';

export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    // The neo4j driver connects lazily: building the routes never opens a connection.
    NEO4J_URI: 'bolt://127.0.0.1:1',
    NEO4J_PASSWORD: 'unused',
    SKEIN_DATA_DIR: path.join(tmpdir(), 'skein-openapi-document'),
    PUBLIC_URL: DOCUMENT_SERVER_URL,
    LOG_LEVEL: 'silent',
  });
  const db = Database.connect({
    uri: config.neo4j.uri!,
    user: config.neo4j.user,
    password: config.neo4j.password!,
    database: undefined,
  });
  const limits = createRateLimits(config);
  // Mounting routes does not touch the event log; serving the document does not either.
  const events = {} as EventLogServices;
  const metrics = createMetrics({ defaults: false });
  const ctx: AppContext = {
    config,
    db,
    log: createLogger(config.logLevel),
    limits,
    events,
    // Nor the live services: mounting their routes reads nothing of them.
    live: {} as LiveServices,
    metrics,
    sessions: await SessionCache.start(config, db, createLogger(config.logLevel)),
    views: await ViewCache.start(config, db, createLogger(config.logLevel), metrics),
    webhookWork: new Signal(),
  };
  const app = await createApp(ctx);
  const server = createServer(app.express);
  try {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    await limits.close();
    await db.close();
  }
}
