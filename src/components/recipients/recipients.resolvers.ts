// GraphQL fields of recipients, each calling the same use case as its REST route (recipients.rest.ts):
//   Mutation.addRecipients      POST /v1/recipients/add
//   Mutation.removeRecipients   DELETE /v1/recipients/remove
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAccount, withoutNulls } from '../../platform/graphql/resolver-helpers.js';
import { addRecipients } from './add-recipients.js';
import { AddRecipientsBody, RemoveRecipientsBody } from './recipients.schemas.js';
import { removeRecipients } from './remove-recipients.js';

type Args = Record<string, unknown>;

export const recipientsResolvers: IResolvers<unknown, GraphQLContext> = {
  Mutation: {
    addRecipients: async (_: unknown, raw: Args, context: GraphQLContext) => {
      await limitAccount(context, (limits) => limits.recipientAddsByAccount);
      const input = args(AddRecipientsBody, withoutNulls(raw.input));
      return addRecipients(context.app, callerOf(context), input);
    },
    removeRecipients: (_: unknown, raw: Args, context: GraphQLContext) =>
      removeRecipients(context.app, callerOf(context), args(RemoveRecipientsBody, withoutNulls(raw.input))),
  },
};
