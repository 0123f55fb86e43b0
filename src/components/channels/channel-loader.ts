// Batches channel reads of one GraphQL request: the channels of 100 messages, or the members of
// every listed channel, load in one query each. Only channels the caller belongs to ever load.
import DataLoader from 'dataloader';
import { loaderFor, type GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { findChannels, listMembers } from './channels-repository.js';
import type { ChannelMember, ChannelOutput } from './channels.schemas.js';

/** Channels by id as the caller sees them; one the caller is not in loads as null. */
export function channelLoader(context: GraphQLContext): DataLoader<string, ChannelOutput | null> {
  return loaderFor(
    context,
    'channels',
    () =>
      new DataLoader<string, ChannelOutput | null>(async (ids) => {
        const uid = context.caller?.uid;
        const channels = uid ? await findChannels(context.app.db, uid, ids) : [];
        const byId = new Map(channels.map((c) => [c.id, c]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}

/** Members of channels by channel id; a channel the caller is not in has none to show. */
export function channelMembersLoader(context: GraphQLContext): DataLoader<string, ChannelMember[]> {
  return loaderFor(
    context,
    'channel-members',
    () =>
      new DataLoader<string, ChannelMember[]>(async (ids) => {
        const uid = context.caller?.uid;
        const members = uid
          ? await listMembers(context.app.db, uid, ids)
          : new Map<string, ChannelMember[]>();
        return ids.map((id) => members.get(id) ?? []);
      }),
  );
}

/** The caller's channels among `ids`, in the order of `ids`. */
export async function loadChannels(
  context: GraphQLContext,
  ids: readonly string[],
): Promise<ChannelOutput[]> {
  const loaded = await channelLoader(context).loadMany([...ids]);
  return loaded.filter((c): c is ChannelOutput => c !== null && !(c instanceof Error));
}
