// STUB (to be written): GraphQL fields of webhook deliveries.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const webhooksResolvers: IResolvers<unknown, GraphQLContext> = {};
