// GraphQL fields of message edits (to be written).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const messageEditsResolvers: IResolvers<unknown, GraphQLContext> = {};
