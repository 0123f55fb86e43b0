// STUB (to be written): WebSocket /v1/ws/v1 and graphql-ws subscriptions on the HTTP server.
import type { Server } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { AppContext } from '../../platform/context.js';

export interface RealtimeServer {
  close(): Promise<void>;
}

export function attachRealtime(_server: Server, _ctx: AppContext, _schema: GraphQLSchema): RealtimeServer {
  return { close: () => Promise.resolve() };
}
