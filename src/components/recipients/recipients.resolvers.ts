// GraphQL fields of recipients (to be written).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const recipientsResolvers: IResolvers<unknown, GraphQLContext> = {};
