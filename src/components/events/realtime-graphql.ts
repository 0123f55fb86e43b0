// GraphQL subscriptions on /graphql over graphql-ws (the graphql-transport-ws subprotocol): the
// WebSocket half of /graphql, beside Apollo's HTTP half.
//   - Credentials: connection_init's payload {authorization: "Bearer …"} or {access_token}, else the
//     upgrade request's (Authorization header, ?access_token=, x-api-key, or the svc_session cookie
//     from this service's own pages); realtime.connect and messages.read required (every event
//     carries message content). Refusals close the socket with 4401 or 4403 and the error code as
//     reason, as graphql-ws clients expect. A credential that ends or loses a scope while the socket
//     is open closes it at once, and no event leaves after the change answered (live-credential.ts).
//   - Only subscription operations run here; queries and mutations go to POST /graphql, where rate
//     limits, cookies and CSRF checks live. Documents pass the same limits as over HTTP (graphql-armor
//     depth, cost, aliases, directives; graphql-js's token limit).
//   - Errors keep their REST code and status in extensions; unexpected ones are masked and logged.
//   - Heartbeats and credential re-checks as for /v1/ws/v1 (realtime-heartbeat.ts); the same
//     slow-consumer close (4008), and every event within SKEIN_EVENT_MAX_BYTES (event-budget.ts).
import {
  GraphQLError,
  OperationTypeNode,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLSchema,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AppContext } from '../../platform/context.js';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { newAnswerBudget } from '../../platform/graphql/answer-budget.js';
import { INTERNAL_ERROR, appErrorShape } from '../../platform/graphql/graphql-errors.js';
import { GRAPHQL_LIMITS, createArmor } from '../../platform/graphql/graphql-server.js';
import { maxListNesting } from '../../platform/graphql/list-nesting.js';
import { clientAddress } from '../../platform/http/client-address.js';
import type { SessionCookies } from '../../platform/http/session-cookies.js';
import { LiveCredential } from './live-credential.js';
import {
  assertSameOriginCookie,
  connectionParamsCredentials,
  refusalFor,
  slowConsumer,
  upgradeCredentials,
  type SocketRefusal,
} from './realtime-auth.js';
import { startHeartbeat } from './realtime-heartbeat.js';
import { CLOSE_CODES, realtimeSettings } from './realtime-settings.js';

/** Largest client frame: a subscription document within the token limit, with its variables. */
const MAX_CLIENT_FRAME = 256 * 1024;

type ConnectionExtra = {
  /** Set once connection_init was accepted. */
  live?: LiveCredential;
};

export interface GraphQLSocketServer {
  wss: WebSocketServer;
  close(): Promise<void>;
}

export function createGraphQLSocketServer(ctx: AppContext, schema: GraphQLSchema): GraphQLSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME });
  // What each socket authenticated with, for the heartbeat's re-check (unset until connection_init).
  const liveOf = new WeakMap<WebSocket, LiveCredential>();
  // The same limits Apollo applies over HTTP, as validation rules.
  const rules = [
    ...specifiedRules,
    ...(createArmor().protect().validationRules ?? []),
    maxListNesting(GRAPHQL_LIMITS.maxListNesting),
  ];

  const refuse = (socket: WebSocket, error: unknown): false => {
    const refusal = refusalFor(error);
    if (refusal.closeCode === CLOSE_CODES.internalError)
      ctx.log.error({ err: error }, 'graphql-ws connection failed');
    closeWith(socket, refusal);
    return false;
  };

  const server = useServer<Record<string, unknown> | undefined, ConnectionExtra>(
    {
      schema,
      isProd: true,
      onConnect: async (connection) => {
        const { request, socket } = connection.extra;
        try {
          const url = new URL(request.url ?? '/', 'http://localhost');
          const credentials = connectionParamsCredentials(
            connection.connectionParams,
            upgradeCredentials(request, url),
          );
          assertSameOriginCookie(request, credentials, ctx.config);
          const live = await LiveCredential.open(ctx, credentials);
          if (socket.readyState !== socket.OPEN) {
            live.close();
            return false;
          }
          connection.extra.live = live;
          liveOf.set(socket, live);
          socket.once('close', () => live.close());
          live.onRefusal((refusal) => closeWith(socket, refusal));
          return true;
        } catch (error) {
          return refuse(socket, error);
        }
      },
      onSubscribe: (connection, _id, payload): ExecutionArgs | readonly GraphQLError[] => {
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('The document does not parse.')];
        }
        const errors = validate(schema, document, rules);
        if (errors.length > 0) return errors;
        const operation = getOperationAST(document, payload.operationName);
        if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) {
          return [
            new GraphQLError(
              'Only subscriptions are served over the WebSocket; send queries and mutations to POST /graphql.',
              { extensions: { code: 'bad_request', status: 400 } },
            ),
          ];
        }
        const contextValue: GraphQLContext = {
          app: ctx,
          caller: connection.extra.live?.caller ?? null,
          credentials: connection.extra.live?.credentials ?? {
            bearer: undefined,
            apiKey: undefined,
            cookie: undefined,
          },
          cookies: NO_COOKIES,
          ip: clientAddress(connection.extra.request, ctx.config.trustProxy),
          loaders: new Map(),
          answer: newAnswerBudget(),
        };
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue,
        };
      },
      // graphql-ws sends right after this answers; a refused credential has closed the socket by
      // then, and a closed socket is sent nothing.
      // A socket holding more than SKEIN_WS_MAX_BUFFERED_BYTES unsent is a slow consumer, closed with
      // 4008 as /v1/ws/v1 closes one (each subscription waits for its frame to be written before
      // taking the next, so only many subscriptions of a client that stopped reading get here).
      onNext: async (connection, _id, _payload, _args, result) => {
        const { socket } = connection.extra;
        if (socket.bufferedAmount > realtimeSettings(ctx.config).maxBufferedBytes) {
          closeWith(socket, slowConsumer());
          return undefined;
        }
        const live = connection.extra.live;
        if (live && !live.current) await live.mayDeliver();
        return result.errors
          ? { ...result, errors: result.errors.map((error) => formatError(ctx, error)) }
          : undefined;
      },
      onError: (_connection, _id, _payload, errors) => errors.map((error) => formatError(ctx, error)),
    },
    wss,
    // Our own heartbeat below pings, cuts silent sockets and re-checks credentials.
    0,
  );

  wss.on('connection', (socket: WebSocket) => {
    startHeartbeat(socket, {
      intervalMs: realtimeSettings(ctx.config).heartbeatSeconds * 1000,
      recheck: async () => {
        await liveOf.get(socket)?.recheck();
      },
      end: (refusal) => closeWith(socket, refusal),
      log: ctx.log,
    });
  });

  return { wss, close: () => Promise.resolve(server.dispose()) };
}

function closeWith(socket: WebSocket, refusal: SocketRefusal): void {
  if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
    socket.close(refusal.closeCode, refusal.code);
  }
}

/** As Apollo's formatError does for HTTP: AppErrors keep code and status; the unexpected is masked. */
function formatError(ctx: AppContext, error: GraphQLError): GraphQLError {
  const shape = appErrorShape(error.originalError);
  if (shape) return new GraphQLError(shape.message, { path: error.path, extensions: shape.extensions });
  if (error.originalError && !(error.originalError instanceof GraphQLError)) {
    ctx.log.error({ err: error.originalError }, 'graphql subscription failed');
    return new GraphQLError(INTERNAL_ERROR.message, {
      path: error.path,
      extensions: INTERNAL_ERROR.extensions,
    });
  }
  return error;
}

/** A socket cannot set cookies; reading them is done once, at the upgrade. */
const NO_COOKIES: SessionCookies = {
  session: () => undefined,
  managerBackup: () => undefined,
  setSession: () => undefined,
  setManagerBackup: () => undefined,
  clearSession: () => undefined,
  clearManagerBackup: () => undefined,
};
