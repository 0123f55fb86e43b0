// GraphQL fields of the users and admin areas; each calls the same use case as its REST route.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAccount, withoutNulls } from '../../platform/graphql/resolver-helpers.js';
import { AdminUserUpdateInput } from '../admin/admin.schemas.js';
import { updateUserGrants } from '../admin/administer-users.js';
import { deactivateManagedUser, reactivateManagedUser } from './deactivate-managed-user.js';
import { deleteManagedUser } from './delete-managed-user.js';
import { acceptInvitation, declineInvitation, listInvitations } from './answer-invitations.js';
import { addManager, listManagers, removeManager } from './manage-managers.js';
import { createManagedUser, listManagedUsers } from './manage-users.js';
import { getMe, getUserByTag } from './read-users.js';
import { searchUsers } from './search-users.js';
import { updateManagedUser } from './update-managed-user.js';
import { updateProfile } from './update-profile.js';
import * as schemas from './users.schemas.js';

type Args = Record<string, unknown>;

export const usersResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    me: (_: unknown, __: Args, context: GraphQLContext) => getMe(context.app, callerOf(context)),
    userByTag: (_: unknown, raw: Args, context: GraphQLContext) =>
      getUserByTag(context.app, callerOf(context), args(schemas.UserTagParam, raw).user_tag),
    searchUsers: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const caller = callerOf(context);
      // GraphQL hands an omitted limit as null; the schema's default wants it absent.
      const query = args(schemas.UserSearchQuery, { q: raw.q, limit: raw.limit ?? undefined });
      return (await searchUsers(context.app, caller, query)).users;
    },
    managedUsers: async (_: unknown, __: Args, context: GraphQLContext) =>
      (await listManagedUsers(context.app, callerOf(context))).users,
    managedUserManagers: async (_: unknown, raw: Args, context: GraphQLContext) =>
      (await listManagers(context.app, callerOf(context), args(schemas.UidParam, raw).uid)).managers,
    managedUserInvitations: async (_: unknown, raw: Args, context: GraphQLContext) =>
      (await listManagers(context.app, callerOf(context), args(schemas.UidParam, raw).uid)).invitations,
    managerInvitations: async (_: unknown, __: Args, context: GraphQLContext) =>
      (await listInvitations(context.app, callerOf(context))).invitations,
  },
  Mutation: {
    updateProfile: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      // The REST route's budget (profileEditsByAccount), spent before the input is read, as there.
      await limitAccount(context, (limits) => limits.profileEditsByAccount);
      return updateProfile(context.app, callerOf(context), args(schemas.ProfileUpdateInput, input), 'args');
    },
    createManagedUser: (_: unknown, { input }: Args, context: GraphQLContext) =>
      createManagedUser(context.app, callerOf(context), args(schemas.ManagedUserCreateInput, input), 'args'),
    updateManagedUser: async (_: unknown, { uid, input }: Args, context: GraphQLContext) => {
      await limitAccount(context, (limits) => limits.profileEditsByAccount);
      return updateManagedUser(
        context.app,
        callerOf(context),
        args(schemas.UidParam, { uid }).uid,
        args(schemas.ManagedUserUpdateInput, input),
        'args',
      );
    },
    deactivateManagedUser: (_: unknown, raw: Args, context: GraphQLContext) =>
      deactivateManagedUser(context.app, callerOf(context), args(schemas.UidParam, raw).uid),
    reactivateManagedUser: (_: unknown, raw: Args, context: GraphQLContext) =>
      reactivateManagedUser(context.app, callerOf(context), args(schemas.UidParam, raw).uid),
    deleteManagedUser: (_: unknown, raw: Args, context: GraphQLContext) =>
      deleteManagedUser(context.app, callerOf(context), args(schemas.UidParam, raw).uid),
    addManagedUserManager: async (_: unknown, { uid, input }: Args, context: GraphQLContext) =>
      (
        await addManager(
          context.app,
          callerOf(context),
          args(schemas.UidParam, { uid }).uid,
          args(schemas.ManagerAddInput, withoutNulls(input)),
        )
      ).managers,
    removeManagedUserManager: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const { uid, manager_uid } = args(schemas.ManagerParam, raw);
      return (await removeManager(context.app, callerOf(context), uid, manager_uid)).managers;
    },
    acceptManagerInvitation: async (_: unknown, raw: Args, context: GraphQLContext) =>
      (await acceptInvitation(context.app, callerOf(context), args(schemas.UidParam, raw).uid)).managers,
    declineManagerInvitation: (_: unknown, raw: Args, context: GraphQLContext) =>
      declineInvitation(context.app, callerOf(context), args(schemas.UidParam, raw).uid),
    adminUpdateUser: (_: unknown, { uid, input }: Args, context: GraphQLContext) =>
      updateUserGrants(
        context.app,
        callerOf(context),
        args(schemas.UidParam, { uid }).uid,
        args(AdminUserUpdateInput, input),
      ),
  },
};
