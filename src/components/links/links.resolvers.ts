// GraphQL fields of links (to be written).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const linksResolvers: IResolvers<unknown, GraphQLContext> = {};
