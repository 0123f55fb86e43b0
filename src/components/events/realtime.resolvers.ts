// STUB (to be written): GraphQL subscriptions over graphql-ws.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const realtimeResolvers: IResolvers<unknown, GraphQLContext> = {};
