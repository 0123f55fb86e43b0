// GraphQL fields of models: Query.models (GET /v1/models), calling the same use case as the REST
// route in models.rest.ts.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { callerOf } from '../../platform/graphql/resolver-helpers.js';
import { listModels } from './list-models.js';

export const modelsResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    models: (_: unknown, _args: unknown, context: GraphQLContext) =>
      listModels(context.app, callerOf(context)),
  },
};
