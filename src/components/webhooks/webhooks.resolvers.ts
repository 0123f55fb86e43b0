// GraphQL fields of webhooks; each calls the same use case as its REST route.
//   Query.deliveries(uid, skip, limit)     GET /v1/managed/users/{uid}/deliveries
//   Mutation.redeliver(uid, webhook_id)    POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver
//   Mutation.rotateEndpointSecret(uid, overlap_seconds)
//                                          POST /v1/managed/users/{uid}/endpoint/secret/rotate
//   Mutation.setEndpointOptions(uid, include_context)
//                                          PATCH /v1/managed/users/{uid}/endpoint
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { listDeliveries } from './list-deliveries.js';
import { redeliverDelivery } from './redeliver-delivery.js';
import { rotateEndpointSecret } from './rotate-endpoint-secret.js';
import { setEndpointOptions } from './set-endpoint-options.js';
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
  Mutation: {
    redeliver: (_: unknown, raw: Args, context: GraphQLContext) => {
      const { uid, webhook_id } = args(schemas.RedeliverParams, {
        uid: raw.uid,
        webhook_id: raw.webhook_id,
      });
      return redeliverDelivery(context.app, callerOf(context), uid, webhook_id);
    },
    rotateEndpointSecret: (_: unknown, raw: Args, context: GraphQLContext) =>
      rotateEndpointSecret(
        context.app,
        callerOf(context),
        args(schemas.DeliveriesParams, { uid: raw.uid }).uid,
        // GraphQL sends null for an omitted argument; the default wants it left out.
        args(schemas.RotateSecretBody, { overlap_seconds: raw.overlap_seconds ?? undefined }),
      ),
    setEndpointOptions: (_: unknown, raw: Args, context: GraphQLContext) =>
      setEndpointOptions(
        context.app,
        callerOf(context),
        args(schemas.DeliveriesParams, { uid: raw.uid }).uid,
        args(schemas.EndpointOptionsBody, { include_context: raw.include_context }),
      ),
  },
};
