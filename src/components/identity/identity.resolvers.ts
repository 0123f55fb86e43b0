// GraphQL fields of the auth area; each calls the same use case as its REST route (see identity.rest.ts).
import type { IResolvers } from '@graphql-tools/utils';
import { JSONResolver } from 'graphql-scalars';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAuth } from '../../platform/graphql/resolver-helpers.js';
import { changePassword } from './change-password.js';
import { delegateSession, returnFromActAs } from './delegate-session.js';
import { exchangeApiKey } from './exchange-api-key.js';
import * as schemas from './identity.schemas.js';
import { logInWithPassword } from './log-in-with-password.js';
import { logOut } from './log-out.js';
import { createApiKey, listApiKeys, revokeApiKey } from './manage-api-keys.js';
import { listSessions, revokeOtherSessions, revokeSession } from './manage-sessions.js';
import { readSession, refreshSession } from './read-session.js';
import { registerUser } from './register-user.js';
import { clearEndedSessionCookies, deliverToken, toTokenResponse } from './token-cookie.js';

type Args = Record<string, unknown>;

export const identityResolvers: IResolvers<unknown, GraphQLContext> = {
  // TokenRequest's deprecated aud, cnf and act take any JSON value, accepted and ignored as on REST.
  JSON: JSONResolver,
  Query: {
    session: (_: unknown, __: Args, context: GraphQLContext) => readSession(context.app, callerOf(context)),
    apiKeys: async (_: unknown, __: Args, context: GraphQLContext) =>
      (await listApiKeys(context.app, callerOf(context))).keys,
    sessions: async (_: unknown, __: Args, context: GraphQLContext) =>
      (await listSessions(context.app, callerOf(context))).sessions,
  },
  Mutation: {
    exchangeApiKey: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const body = args(schemas.TokenRequest, input);
      return deliverToken(
        context.cookies,
        await exchangeApiKey(context.app, { ...body, apiKey: context.credentials.apiKey }),
      );
    },
    createApiKey: (_: unknown, { input }: Args, context: GraphQLContext) =>
      createApiKey(context.app, callerOf(context), args(schemas.KeyCreateInput, input)),
    revokeApiKey: (_: unknown, raw: Args, context: GraphQLContext) =>
      revokeApiKey(context.app, callerOf(context), args(schemas.KeyIdParam, raw).key_id),
    revokeSession: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const { session_id } = args(schemas.SessionIdParam, raw);
      const result = await revokeSession(context.app, callerOf(context), session_id);
      clearEndedSessionCookies(context.cookies, [result.session_id]);
      return result;
    },
    revokeOtherSessions: async (_: unknown, __: Args, context: GraphQLContext) => {
      const result = await revokeOtherSessions(context.app, callerOf(context));
      clearEndedSessionCookies(context.cookies, result.revoked);
      return result;
    },
    refreshSession: async (_: unknown, __: Args, context: GraphQLContext) =>
      deliverToken(context.cookies, await refreshSession(context.app, callerOf(context))),
    login: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      return deliverToken(
        context.cookies,
        await logInWithPassword(context.app, args(schemas.LoginInput, input), context.ip),
      );
    },
    changePassword: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const caller = callerOf(context);
      return deliverToken(
        context.cookies,
        await changePassword(context.app, caller, args(schemas.PasswordChangeInput, input), context.ip),
      );
    },
    logout: async (_: unknown, __: Args, context: GraphQLContext) => {
      await logOut(context.app, context.credentials, context.cookies.managerBackup());
      context.cookies.clearSession();
      context.cookies.clearManagerBackup();
      return true;
    },
    actAs: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const caller = callerOf(context);
      const delegated = await delegateSession(
        context.app,
        caller,
        args(schemas.SubjectParam, raw).subject_uid,
      );
      if (caller.sessionToken)
        context.cookies.setManagerBackup(caller.sessionToken, context.app.config.sessionTtlSeconds);
      return deliverToken(context.cookies, delegated);
    },
    actAsReturn: async (_: unknown, __: Args, context: GraphQLContext) => {
      const back = await returnFromActAs(context.app, context.caller, context.cookies.managerBackup());
      context.cookies.clearManagerBackup();
      return deliverToken(context.cookies, {
        access_token: back.token,
        expires_in: back.expires_in,
        expires_at: back.expires_at,
      });
    },
    register: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      return deliverToken(
        context.cookies,
        await registerUser(context.app, args(schemas.RegisterInput, input)),
      );
    },
    delegate: async (_: unknown, raw: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const { managed_uid } = args(schemas.DelegateInput, raw);
      return toTokenResponse(await delegateSession(context.app, callerOf(context), managed_uid));
    },
  },
};
