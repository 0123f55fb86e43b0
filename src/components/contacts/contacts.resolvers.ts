// GraphQL fields of contact verification, password reset and sign-in by email code; each calls the same use case as its
// REST route (see contacts.rest.ts) and counts against the same per-address auth limit.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAuth, withoutNulls } from '../../platform/graphql/resolver-helpers.js';
import { deliverToken } from '../identity/token-cookie.js';
import * as schemas from './contacts.schemas.js';
import { logInWithEmailCode, requestEmailCode } from './log-in-with-email-code.js';
import { requestContactChallenge } from './request-contact-challenge.js';
import { requestPasswordReset, resetPassword } from './reset-password.js';
import { verifyContactCode, verifyEndpoint } from './verify-contact.js';

type Args = Record<string, unknown>;

export const contactsResolvers: IResolvers<unknown, GraphQLContext> = {
  Mutation: {
    requestEmailVerification: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const { email } = args(schemas.EmailChallengeInput, input);
      return requestContactChallenge(context.app, callerOf(context), 'email', email);
    },
    verifyEmail: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const { email, code } = args(schemas.EmailVerifyInput, input);
      return verifyContactCode(context.app, callerOf(context), 'email', email, code);
    },
    requestPhoneVerification: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const { phone } = args(schemas.PhoneChallengeInput, input);
      return requestContactChallenge(context.app, callerOf(context), 'phone', phone);
    },
    verifyPhone: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const { phone, code } = args(schemas.PhoneVerifyInput, input);
      return verifyContactCode(context.app, callerOf(context), 'phone', phone, code);
    },
    requestEndpointVerification: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const { url } = args(schemas.EndpointChallengeInput, input);
      return requestContactChallenge(context.app, callerOf(context), 'endpoint', url);
    },
    verifyEndpoint: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      const { url } = args(schemas.EndpointVerifyInput, input);
      return verifyEndpoint(context.app, callerOf(context), url);
    },
    requestPasswordReset: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      return requestPasswordReset(context.app, args(schemas.PasswordResetRequestInput, input));
    },
    resetPassword: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      return deliverToken(
        context.cookies,
        await resetPassword(context.app, args(schemas.PasswordResetInput, input), context.ip),
      );
    },
    requestEmailCode: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      return requestEmailCode(context.app, args(schemas.EmailCodeRequestInput, withoutNulls(input)));
    },
    loginWithEmailCode: async (_: unknown, { input }: Args, context: GraphQLContext) => {
      await limitAuth(context);
      return deliverToken(
        context.cookies,
        await logInWithEmailCode(
          context.app,
          args(schemas.EmailCodeLoginInput, withoutNulls(input)),
          context.ip,
        ),
      );
    },
  },
};
