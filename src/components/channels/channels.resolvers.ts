// GraphQL fields of channels; each operation calls the same use case as its REST route
// (channels.rest.ts). Channel.members, ChannelMember.user and Message.channels load through
// per-request DataLoaders, and only ever show channels the caller belongs to.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, withoutNulls } from '../../platform/graphql/resolver-helpers.js';
import { MessageIdParam, type MessageOutput } from '../messages/messages.schemas.js';
import { userLoader } from '../users/user-loader.js';
import { channelMembersLoader, loadChannels } from './channel-loader.js';
import * as schemas from './channels.schemas.js';
import { createChannel } from './create-channel.js';
import { deleteChannel } from './delete-channel.js';
import { addChannelMember, listChannelMembers, removeChannelMember } from './manage-channel-members.js';
import { listChannelMessages, listChannels, readChannel } from './read-channels.js';
import { setMessageChannels } from './set-message-channels.js';
import { updateChannel } from './update-channel.js';

type Args = Record<string, unknown>;

function channelId(raw: unknown): string {
  return args(schemas.ChannelIdParam, { channel_id: raw }).channel_id;
}

export const channelsResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    channels: (_: unknown, __: Args, context: GraphQLContext) => listChannels(context.app, callerOf(context)),
    channel: (_: unknown, raw: Args, context: GraphQLContext) =>
      readChannel(context.app, callerOf(context), channelId(raw.channel_id)),
    channelMembers: (_: unknown, raw: Args, context: GraphQLContext) =>
      listChannelMembers(context.app, callerOf(context), channelId(raw.channel_id)),
    channelMessages: (_: unknown, { channel_id, ...page }: Args, context: GraphQLContext) =>
      listChannelMessages(
        context.app,
        callerOf(context),
        channelId(channel_id),
        args(schemas.ChannelMessagesQuery, withoutNulls(page)),
      ),
  },
  Mutation: {
    createChannel: (_: unknown, { input }: Args, context: GraphQLContext) =>
      createChannel(context.app, callerOf(context), args(schemas.ChannelCreateInput, input)),
    updateChannel: (_: unknown, { channel_id, input }: Args, context: GraphQLContext) =>
      updateChannel(
        context.app,
        callerOf(context),
        channelId(channel_id),
        args(schemas.ChannelUpdateInput, input),
      ),
    deleteChannel: (_: unknown, { channel_id }: Args, context: GraphQLContext) =>
      deleteChannel(context.app, callerOf(context), channelId(channel_id)),
    addChannelMember: (_: unknown, raw: Args, context: GraphQLContext) =>
      addChannelMember(
        context.app,
        callerOf(context),
        channelId(raw.channel_id),
        args(schemas.ChannelMemberInput, withoutNulls((raw.input ?? {}) as Args)),
      ),
    removeChannelMember: (_: unknown, raw: Args, context: GraphQLContext) => {
      const params = args(schemas.ChannelMemberParam, raw);
      return removeChannelMember(context.app, callerOf(context), params.channel_id, params.uid);
    },
    setMessageChannels: (_: unknown, raw: Args, context: GraphQLContext) =>
      setMessageChannels(
        context.app,
        callerOf(context),
        args(MessageIdParam, { message_id: raw.message_id }).message_id,
        args(schemas.UpdateChannelsInput, { channel_ids: raw.channel_ids }).channel_ids,
      ),
  },
  Channel: {
    members: (channel: schemas.ChannelOutput, _: Args, context: GraphQLContext) =>
      channelMembersLoader(context).load(channel.id),
    messages: (channel: schemas.ChannelOutput, raw: Args, context: GraphQLContext) =>
      listChannelMessages(
        context.app,
        callerOf(context),
        channel.id,
        args(schemas.ChannelMessagesQuery, withoutNulls(raw)),
      ),
  },
  ChannelMember: {
    user: (member: schemas.ChannelMember, _: Args, context: GraphQLContext) =>
      userLoader(context).load(member.uid),
  },
  MessageChannels: {
    channels: (result: schemas.UpdateChannelsResponse, _: Args, context: GraphQLContext) =>
      loadChannels(context, result.channel_ids),
  },
  Message: {
    channels: (message: MessageOutput, _: Args, context: GraphQLContext) =>
      loadChannels(context, message.channel_ids),
  },
};
