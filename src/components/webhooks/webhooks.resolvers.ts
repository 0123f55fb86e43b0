// GraphQL fields of webhooks; each calls the same use case as its REST route.
//   Query.deliveries(uid, skip, limit)   GET /v1/managed/users/{uid}/deliveries
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { listDeliveries } from './list-deliveries.js';
import * as schemas from './webhooks.schemas.js';

type Args = Record<string, unknown>;

export const webhooksResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    deliveries: (_: unknown, { uid, ...page }: Args, context: GraphQLContext) =>
      listDeliveries(
        context.app,
        callerOf(context),
        args(schemas.DeliveriesParams, { uid }).uid,
        args(schemas.DeliveriesQuery, page),
      ),
  },
};
