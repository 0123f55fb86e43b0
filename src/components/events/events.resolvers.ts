// STUB (to be written): GraphQL ping and notifications.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const eventsResolvers: IResolvers<unknown, GraphQLContext> = {};
