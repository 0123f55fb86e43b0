// POST /graphql runs queries and mutations only. A subscription sent over plain HTTP used to start,
// find no stream to answer with, and fail as a 500 "Internal error." with an error in the log
// (first-hour review 2026-11-28 #7); it is the client's mistake, so it is answered 400 with where
// subscriptions are served, and nothing is logged.
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, OperationTypeNode } from 'graphql';
import { AppError } from '../errors.js';

export const SUBSCRIPTION_OVER_HTTP =
  'Subscriptions are served over WebSocket: open ws(s)://<host>/graphql with the graphql-transport-ws ' +
  'subprotocol (the graphql-ws library), send connection_init with {"authorization": "Bearer <token>"}, ' +
  'then subscribe. POST /graphql runs queries and mutations.';

export function subscriptionsOverWebSocketOnly<Context extends object>(): ApolloServerPlugin<Context> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        didResolveOperation: ({ operation }) => {
          if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) return Promise.resolve();
          const error = new AppError('bad_request', SUBSCRIPTION_OVER_HTTP);
          throw new GraphQLError(SUBSCRIPTION_OVER_HTTP, {
            originalError: error,
            extensions: { code: error.code, status: error.status, http: { status: error.status } },
          });
        },
      }),
  };
}
