// Batches message reads of one GraphQL request into one hydrate query, always as the caller sees
// them: a message the caller may not see loads as null. Two loaders per request: one hydrating
// fully, one without links for selections that need none (message-selection.ts).
import DataLoader from 'dataloader';
import { loaderFor, type GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { hydrateMessages } from './messages-repository.js';
import type { MessageOutput } from './messages.schemas.js';
import { viewerOf } from './visibility-policy.js';

export function messageLoader(
  context: GraphQLContext,
  links = true,
): DataLoader<string, MessageOutput | null> {
  return loaderFor(
    context,
    links ? 'messages' : 'messages-without-links',
    () =>
      new DataLoader<string, MessageOutput | null>(async (ids) => {
        const messages = await hydrateMessages(
          context.app.db,
          viewerOf(context.caller),
          [...ids],
          context.app.config.publicUrl,
          { links },
        );
        const byId = new Map(messages.map((m) => [m.id, m]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}

/** Loads visible messages by id, keeping the order and dropping any that load as null. */
export async function loadVisible(
  context: GraphQLContext,
  ids: readonly string[],
  links = true,
): Promise<MessageOutput[]> {
  const loaded = await messageLoader(context, links).loadMany([...ids]);
  return loaded.filter((m): m is MessageOutput => m !== null && !(m instanceof Error));
}
