// GraphQL fields of models (to be written).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const modelsResolvers: IResolvers<unknown, GraphQLContext> = {};
