// GraphQL fields of export (to be written).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const exportResolvers: IResolvers<unknown, GraphQLContext> = {};
