// GraphQL fields of threads (to be written).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const threadsResolvers: IResolvers<unknown, GraphQLContext> = {};
