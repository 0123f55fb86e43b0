// Runs the real app in the test process against the run's Neo4j, on a free port, and speaks HTTP
// to it. Each test file starts its own server; tests isolate themselves with unique data.
import { SessionCache } from '../../src/components/identity/session-cache.js';
import { ViewCache } from '../../src/platform/http/view-cache.js';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { startLive } from '../../src/components/live/live-services.js';
import { startEventLog } from '../../src/components/event-log/event-log-services.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { Signal } from '../../src/platform/signal.js';
import {
  startWebhookDispatcher,
  type WebhookDispatcher,
} from '../../src/components/webhooks/webhook-dispatcher.js';
import { bootstrapAdmin } from '../../src/components/admin/administer-users.js';
import { loadConfig } from '../../src/platform/config.js';
import type { AppContext } from '../../src/platform/context.js';
import { createLogger } from '../../src/platform/logger.js';
import { CausalBookmarks } from '../../src/platform/neo4j/causal-bookmarks.js';
import { Database } from '../../src/platform/neo4j/database.js';
import { createRateLimits } from '../../src/platform/rate-limits.js';

export const TEST_ADMIN = { tag: 'skein-test-admin', password: 'test-admin-password-7c1f' };

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
  /** Set-Cookie values by cookie name (whole header value). */
  cookies: Record<string, string>;
}

export interface RequestOptions {
  token?: string | undefined;
  apiKey?: string | undefined;
  cookie?: string | undefined;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  ctx: AppContext;
  request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: RequestOptions,
  ): Promise<ApiResponse<T>>;
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<
    ApiResponse<{ data: T | null; errors?: { message: string; extensions?: Record<string, unknown> }[] }>
  >;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /**
   * Run the webhook dispatcher in this server, claiming only the deliveries of the bots made through
   * this server (POST /v1/managed/users, from the file's tests or from the SDKs' own test suites it
   * runs). Off by default. Every test file shares one database, and a dispatcher that claimed
   * everything also sent (or, with private targets refused, failed) other files' deliveries, and
   * leased the ones webhooks.int.test.ts's claim race was about to claim.
   */
  webhooks?: boolean;
}

/**
 * Serves `handler`, adding to `made` the uid of every bot made through it: the answer of a
 * successful POST /v1/managed/users is the new user.
 */
function recordingManagedUsers(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  made: Set<string>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method === 'POST' && req.url?.split('?')[0] === '/v1/managed/users') {
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        const [chunk] = args;
        if (res.statusCode === 201 && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
          const uid = (JSON.parse(chunk.toString()) as { uid?: unknown }).uid;
          if (typeof uid === 'string') made.add(uid);
        }
        return end(...args);
      }) as ServerResponse['end'];
    }
    handler(req, res);
  };
}

export async function startTestServer(
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const config = loadConfig({
    NEO4J_URI: process.env.SKEIN_TEST_NEO4J_URI,
    NEO4J_PASSWORD: process.env.SKEIN_TEST_NEO4J_PASSWORD,
    SKEIN_DATA_DIR: process.env.SKEIN_TEST_DATA_DIR ?? '/tmp/skein-test-data',
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    SKEIN_LOGIN_FAILURES_PER_15_MIN: '1000',
    SKEIN_ADMIN_TAG: TEST_ADMIN.tag,
    SKEIN_ADMIN_PASSWORD: TEST_ADMIN.password,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    PORT: '0',
    ...env,
  });
  const log = createLogger(config.logLevel);
  const db = Database.connect({
    uri: config.neo4j.uri!,
    user: config.neo4j.user,
    password: config.neo4j.password!,
    database: undefined,
  });
  const metrics = createMetrics({ defaults: false });
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
  const botsMadeHere = new Set<string>();
  const server: Server = createServer(
    options.webhooks ? recordingManagedUsers(app.express, botsMadeHere) : app.express,
  );
  app.attach(server);
  const dispatcher: WebhookDispatcher | undefined = options.webhooks
    ? startWebhookDispatcher(ctx, { onlyUids: botsMadeHere })
    : undefined;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = async <T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (options.cookie) headers.cookie = options.cookie;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const cookies: Record<string, string> = {};
    for (const cookie of res.headers.getSetCookie()) cookies[cookie.split('=')[0]!] = cookie;
    let parsed: unknown = text;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers, cookies };
  };

  return {
    url,
    ctx,
    request,
    graphql: (query, variables = {}, options = {}) =>
      request('POST', '/graphql', { ...options, body: { query, variables } }),
    close: async () => {
      await dispatcher?.stop();
      server.closeAllConnections();
      // Open WebSockets hold the server open until the app closes them.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await closed;
      await live.stop();
      await events.stop();
      await limits.close();
      await sessions.close();
      await views.close();
      await db.close();
    },
  };
}

/** The value of a cookie from a Set-Cookie header value, e.g. "svc_session=abc; Path=/" → "abc". */
export function cookieValue(setCookie: string | undefined): string | undefined {
  return setCookie?.split(';')[0]?.split('=').slice(1).join('=');
}
