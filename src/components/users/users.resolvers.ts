// GraphQL fields of the users and admin areas; each calls the same use case as its REST route.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { AdminUserUpdateInput } from '../admin/admin.schemas.js';
import { updateUserGrants } from '../admin/administer-users.js';
import { createManagedUser, listManagedUsers } from './manage-users.js';
import { getMe, getUserByTag } from './read-users.js';
import { searchUsers } from './search-users.js';
import { updateProfile } from './update-profile.js';
import * as schemas from './users.schemas.js';

type Args = Record<string, unknown>;

export const usersResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    me: (_: unknown, __: Args, context: GraphQLContext) => getMe(context.app, callerOf(context)),
    userByTag: (_: unknown, raw: Args, context: GraphQLContext) => {
      callerOf(context);
      return getUserByTag(context.app, args(schemas.UserTagParam, raw).user_tag);
    },
    searchUsers: async (_: unknown, raw: Args, context: GraphQLContext) => {
      callerOf(context);
      // GraphQL hands an omitted limit as null; the schema's default wants it absent.
      const query = args(schemas.UserSearchQuery, { q: raw.q, limit: raw.limit ?? undefined });
      return (await searchUsers(context.app, query)).users;
    },
    managedUsers: async (_: unknown, __: Args, context: GraphQLContext) =>
      (await listManagedUsers(context.app, callerOf(context))).users,
  },
  Mutation: {
    updateProfile: (_: unknown, { input }: Args, context: GraphQLContext) =>
      updateProfile(context.app, callerOf(context), args(schemas.ProfileUpdateInput, input)),
    createManagedUser: (_: unknown, { input }: Args, context: GraphQLContext) =>
      createManagedUser(context.app, callerOf(context), args(schemas.ManagedUserCreateInput, input)),
    adminUpdateUser: (_: unknown, { uid, input }: Args, context: GraphQLContext) =>
      updateUserGrants(
        context.app,
        callerOf(context),
        args(schemas.UidParam, { uid }).uid,
        args(AdminUserUpdateInput, input),
      ),
  },
};
