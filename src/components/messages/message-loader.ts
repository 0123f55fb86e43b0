// Batches message reads of one GraphQL request into one hydrate query, always as the caller sees
// them: a message the caller may not see loads as null.
import DataLoader from 'dataloader';
import { loaderFor, type GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { hydrateMessages } from './messages-repository.js';
import type { MessageOutput } from './messages.schemas.js';
import { viewerOf } from './visibility-policy.js';

export function messageLoader(context: GraphQLContext): DataLoader<string, MessageOutput | null> {
  return loaderFor(
    context,
    'messages',
    () =>
      new DataLoader<string, MessageOutput | null>(async (ids) => {
        const messages = await hydrateMessages(
          context.app.db,
          viewerOf(context.caller),
          [...ids],
          context.app.config.publicUrl,
        );
        const byId = new Map(messages.map((m) => [m.id, m]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}

/** Loads visible messages by id, keeping the order and dropping any that load as null. */
export async function loadVisible(context: GraphQLContext, ids: readonly string[]): Promise<MessageOutput[]> {
  const loaded = await messageLoader(context).loadMany([...ids]);
  return loaded.filter((m): m is MessageOutput => m !== null && !(m instanceof Error));
}
