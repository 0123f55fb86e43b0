// Assembles the Express app: JSON parsing, request logging, the components' REST routes (each
// registered in the OpenAPI document as it mounts), GraphQL at /graphql, and the error handler.
import cookieParser from 'cookie-parser';
import express, { type Express } from 'express';
import type { Server } from 'node:http';
import { pinoHttp } from 'pino-http';
import { attachRealtime, type RealtimeServer } from './components/events/realtime-server.js';
import { contactsResolvers } from './components/contacts/contacts.resolvers.js';
import { mountContactRoutes } from './components/contacts/contacts.rest.js';
import { eventsResolvers } from './components/events/events.resolvers.js';
import { mountEventRoutes } from './components/events/events.rest.js';
import { realtimeResolvers } from './components/events/realtime.resolvers.js';
import { NotificationEventOutput } from './components/events/events.schemas.js';
import { mountPublicPage } from './components/public-page/public-page.js';
import { webhooksResolvers } from './components/webhooks/webhooks.resolvers.js';
import { mountWebhookRoutes } from './components/webhooks/webhooks.rest.js';
import { mountGraphiQL } from './platform/graphql/graphiql.js';
import { carryBookmarks } from './platform/http/carry-bookmarks.js';
import { corsPolicy } from './platform/http/cors-policy.js';
import { mountDocsPages } from './platform/http/docs-pages.js';
import { mountAdminRoutes } from './components/admin/admin.rest.js';
import { metricsResolvers } from './components/admin/metrics.resolvers.js';
import { mountMetricsRoutes } from './components/admin/metrics.rest.js';
import { identityResolvers } from './components/identity/identity.resolvers.js';
import { mountIdentityRoutes } from './components/identity/identity.rest.js';
import { authenticate } from './components/identity/sessions.js';
import { channelsResolvers } from './components/channels/channels.resolvers.js';
import { contextResolvers } from './components/context/context.resolvers.js';
import { mountContextRoutes } from './components/context/context.rest.js';
import { mountCompletionRoutes } from './components/completions/completions.rest.js';
import { openAiErrorBodies } from './components/completions/openai-errors.js';
import { mountChannelRoutes } from './components/channels/channels.rest.js';
import { linksResolvers } from './components/links/links.resolvers.js';
import { mountLinkRoutes } from './components/links/links.rest.js';
import { messageEditsResolvers } from './components/messages/message-edits.resolvers.js';
import { mountMessageEditRoutes } from './components/messages/message-edits.rest.js';
import { messagesResolvers } from './components/messages/messages.resolvers.js';
import { mountMessageRoutes } from './components/messages/messages.rest.js';
import { reactionsResolvers } from './components/reactions/reactions.resolvers.js';
import { mountReactionRoutes } from './components/reactions/reactions.rest.js';
import { recipientsResolvers } from './components/recipients/recipients.resolvers.js';
import { mountRecipientRoutes } from './components/recipients/recipients.rest.js';
import { exportResolvers } from './components/export/export.resolvers.js';
import { mountExportRoutes } from './components/export/export.rest.js';
import { filesResolvers } from './components/files/files.resolvers.js';
import { mountFileRoutes } from './components/files/files.rest.js';
import { modelsResolvers } from './components/models/models.resolvers.js';
import { mountModelRoutes } from './components/models/models.rest.js';
import { searchResolvers } from './components/search/search.resolvers.js';
import { mountSearchRoutes } from './components/search/search.rest.js';
import { threadsResolvers } from './components/threads/threads.resolvers.js';
import { mountThreadRoutes } from './components/threads/threads.rest.js';
import { mountUserRoutes } from './components/users/users.rest.js';
import { liveResolvers } from './components/live/live.resolvers.js';
import { mountLiveRoutes, mountStreamRoutes } from './components/live/live.rest.js';
import { usersResolvers } from './components/users/users.resolvers.js';
import type { AppContext } from './platform/context.js';
import { buildSchema, createGraphQLMiddleware } from './platform/graphql/graphql-server.js';
import { errorHandler, notFoundHandler } from './platform/http/error-handler.js';
import { mountHealthRoutes } from './platform/http/health.rest.js';
import { mountMetricsEndpoint, requestMetrics } from './platform/http/metrics.rest.js';
import { RouteTable, type Authenticator } from './platform/http/route-table.js';
import { redactUrl } from './platform/logger.js';
import { createOpenApiRegistry } from './platform/openapi.js';
import { registerWebhookDocs } from './platform/openapi-webhooks.js';

export interface App {
  express: Express;
  /** Adds the WebSocket endpoints (/v1/ws/v1 and GraphQL subscriptions) to the HTTP server. */
  attach(server: Server): void;
  /** Stops what the app started (GraphQL server, sockets); the HTTP server and database belong to the caller. */
  close(): Promise<void>;
}

export const JSON_BODY_LIMIT = '1mb';

export async function createApp(ctx: AppContext): Promise<App> {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  // The access log writes every request at info (5xx too; errorHandler logs their errors at error).
  // Below that level it writes nothing, yet would still serialize each request into a child logger
  // (a fortieth of the service's CPU on a thread read), so it is left out.
  if (ctx.log.isLevelEnabled('info')) {
    app.use(
      pinoHttp({
        logger: ctx.log,
        autoLogging: { ignore: (req) => req.url === '/healthz' },
        serializers: { req: (req: { url?: string }) => ({ ...req, url: redactUrl(req.url) }) },
      }),
    );
  }
  app.use(requestMetrics(ctx));
  mountMetricsEndpoint(app, ctx);
  // Before the routes: a preflight (OPTIONS) from a listed origin is answered here, not as 405.
  const corsHandler = corsPolicy(ctx.config);
  if (corsHandler) app.use(['/v1', '/graphql'], corsHandler);
  app.use((req, res, next) => {
    const correlationId = req.get('x-correlation-id');
    if (correlationId && /^[\w.:-]{1,128}$/.test(correlationId)) res.set('X-Correlation-Id', correlationId);
    next();
  });
  // Before the body parser: its errors on this path carry OpenAI's error object too (decision 033).
  app.use('/v1/chat/completions', openAiErrorBodies());
  // Not strict: any JSON text is parsed, so a body that is valid JSON of the wrong type ("x", 1, null)
  // reaches the route's schema and is answered as a validation error, not as malformed JSON.
  app.use(
    express.json({ limit: JSON_BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] }),
  );
  app.use(cookieParser());
  // A Neo4j cluster with several instances only: reads follow the caller's writes made elsewhere.
  const causal = ctx.db.causalBookmarks;
  if (causal) app.use(['/v1', '/graphql'], carryBookmarks(causal, ctx.config));

  const authenticator: Authenticator = (credentials) => authenticate(ctx, credentials);
  const registry = createOpenApiRegistry();
  const router = express.Router();
  const routes = new RouteTable(router, registry, ctx, authenticator);
  mountHealthRoutes(routes, ctx, registry);
  mountIdentityRoutes(routes, ctx);
  mountUserRoutes(routes, ctx);
  mountAdminRoutes(routes, ctx);
  mountMetricsRoutes(routes, ctx);
  mountMessageRoutes(routes, ctx);
  mountMessageEditRoutes(routes, ctx);
  mountReactionRoutes(routes, ctx);
  mountLinkRoutes(routes, ctx);
  mountRecipientRoutes(routes, ctx);
  mountChannelRoutes(routes, ctx);
  mountThreadRoutes(routes, ctx);
  mountContextRoutes(routes, ctx);
  mountSearchRoutes(routes, ctx);
  mountModelRoutes(routes, ctx);
  mountCompletionRoutes(routes, ctx);
  mountExportRoutes(routes, ctx);
  mountFileRoutes(routes, ctx);
  mountContactRoutes(routes, ctx);
  mountEventRoutes(routes, ctx);
  mountLiveRoutes(routes, ctx);
  mountStreamRoutes(routes, ctx);
  mountWebhookRoutes(routes, ctx);
  routes.finish();
  registerWebhookDocs(registry, NotificationEventOutput);
  app.use(router);

  const schema = buildSchema([
    identityResolvers,
    usersResolvers,
    metricsResolvers,
    messagesResolvers,
    messageEditsResolvers,
    reactionsResolvers,
    linksResolvers,
    recipientsResolvers,
    channelsResolvers,
    threadsResolvers,
    contextResolvers,
    searchResolvers,
    modelsResolvers,
    exportResolvers,
    filesResolvers,
    contactsResolvers,
    eventsResolvers,
    realtimeResolvers,
    liveResolvers,
    webhooksResolvers,
    { Query: { health: () => true } },
  ]);
  const graphql = await createGraphQLMiddleware(ctx, schema, authenticator);
  mountGraphiQL(app);
  app.use('/graphql', graphql.middleware);
  mountPublicPage(app, ctx);
  mountDocsPages(app);

  app.use(notFoundHandler());
  app.use(errorHandler(ctx.log));
  let realtime: RealtimeServer | undefined;
  return {
    express: app,
    attach: (server) => {
      realtime = attachRealtime(server, ctx, schema);
    },
    close: async () => {
      await realtime?.close();
      await graphql.stop();
    },
  };
}
