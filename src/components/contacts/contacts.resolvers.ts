// STUB (to be written): GraphQL fields of contact verification and password reset.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';

export const contactsResolvers: IResolvers<unknown, GraphQLContext> = {};
