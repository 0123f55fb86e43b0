// /v1 channel routes:
//   GET    /v1/channels                              the channels you belong to
//   POST   /v1/channels                              create a channel (channels.create); you become its admin
//   GET    /v1/channels/:channel_id                  one channel (members only)
//   PATCH  /v1/channels/:channel_id                  rename or describe it (admins)
//   DELETE /v1/channels/:channel_id                  delete it with its memberships and inclusions (admins)
//   GET    /v1/channels/:channel_id/members          its members (members only)
//   POST   /v1/channels/:channel_id/members          add a member or set its admin flag (admins)
//   DELETE /v1/channels/:channel_id/members/:uid     remove a member (admins), or leave
//   GET    /v1/channels/:channel_id/messages         messages included in it, newest first (members only)
//   PATCH  /v1/messages/:message_id/channels         replace a message's channels among yours
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { MessageIdParam, PaginatedMessages } from '../messages/messages.schemas.js';
import { createChannel } from './create-channel.js';
import { deleteChannel } from './delete-channel.js';
import { addChannelMember, listChannelMembers, removeChannelMember } from './manage-channel-members.js';
import { listChannelMessages, listChannels, readChannel } from './read-channels.js';
import { setMessageChannels } from './set-message-channels.js';
import * as schemas from './channels.schemas.js';
import { updateChannel } from './update-channel.js';

const TAG = 'channels';

const NOT_FOUND = 'No such channel.';
const MEMBERS_ONLY =
  'You are not a member of the channel (`not_channel_member`), or messages.read is missing.';
const ADMINS_ONLY =
  'You are not an admin of the channel (`not_channel_admin`), or messages.write is missing (`insufficient_scope`).';

export function mountChannelRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/channels',
    tag: TAG,
    summary: 'Your channels',
    description:
      'Every channel you belong to, ordered by display name (case-insensitive), then id. `is_admin` is ' +
      'your own flag. Needs `messages.read`.',
    auth: 'required',
    response: schemas.ChannelList,
    errors: { 403: 'messages.read missing.' },
    handler: ({ caller }) => listChannels(ctx, caller),
  });

  routes.add({
    method: 'post',
    path: '/v1/channels',
    tag: TAG,
    summary: 'Create a channel',
    description:
      'Needs the `channels.create` scope (granted explicitly). `display_name` is 1–100 characters ' +
      '(trimmed), `description` at most 2000. You become its first member and admin. Answers 201.',
    auth: 'required',
    status: 201,
    body: schemas.ChannelCreateInput,
    response: schemas.ChannelOutput,
    errors: { 403: 'channels.create missing (`insufficient_scope`).' },
    handler: ({ caller, body }) => createChannel(ctx, caller, body),
  });

  routes.add({
    method: 'get',
    path: '/v1/channels/:channel_id',
    tag: TAG,
    summary: 'Read a channel',
    description: 'Members only. Needs `messages.read`.',
    auth: 'required',
    params: schemas.ChannelIdParam,
    response: schemas.ChannelOutput,
    errors: { 403: MEMBERS_ONLY, 404: NOT_FOUND },
    handler: ({ caller, params }) => readChannel(ctx, caller, params.channel_id),
  });

  routes.add({
    method: 'patch',
    path: '/v1/channels/:channel_id',
    tag: TAG,
    summary: 'Update a channel',
    description:
      'Channel admins only. Only the fields sent change; `description: null` clears it; an empty body ' +
      'changes nothing and answers the channel. Needs `messages.write`.',
    auth: 'required',
    params: schemas.ChannelIdParam,
    body: schemas.ChannelUpdateInput,
    response: schemas.ChannelOutput,
    errors: { 403: ADMINS_ONLY, 404: NOT_FOUND },
    handler: ({ caller, params, body }) => updateChannel(ctx, caller, params.channel_id, body),
  });

  routes.add({
    method: 'delete',
    path: '/v1/channels/:channel_id',
    tag: TAG,
    summary: 'Delete a channel',
    description:
      'Channel admins only. Removes the channel, its memberships and its inclusions; the messages stay, ' +
      'but people who saw them only through this channel no longer do. Needs `messages.write`.',
    auth: 'required',
    params: schemas.ChannelIdParam,
    response: schemas.ChannelDeleted,
    errors: { 403: ADMINS_ONLY, 404: NOT_FOUND },
    handler: ({ caller, params }) => deleteChannel(ctx, caller, params.channel_id),
  });

  routes.add({
    method: 'get',
    path: '/v1/channels/:channel_id/members',
    tag: TAG,
    summary: 'Channel members',
    description: 'Members only; in joining order. Needs `messages.read`.',
    auth: 'required',
    params: schemas.ChannelIdParam,
    response: schemas.ChannelMemberList,
    errors: { 403: MEMBERS_ONLY, 404: NOT_FOUND },
    handler: ({ caller, params }) => listChannelMembers(ctx, caller, params.channel_id),
  });

  routes.add({
    method: 'post',
    path: '/v1/channels/:channel_id/members',
    tag: TAG,
    summary: 'Add a channel member',
    description:
      'Channel admins only. Body `{user_tag | uid, is_admin?}` (a tag may start with @). A new member is ' +
      'not an admin unless `is_admin` is true; adding an existing member changes its admin flag when ' +
      '`is_admin` is sent and otherwise leaves it. A channel always keeps an admin: demoting its last ' +
      'admin is 409 `last_channel_admin`. Answers the member entry. Needs `messages.write`.',
    auth: 'required',
    params: schemas.ChannelIdParam,
    body: schemas.ChannelMemberInput,
    response: schemas.ChannelMember,
    errors: {
      403: ADMINS_ONLY,
      404: 'No such channel (`channel_not_found`) or user (`user_not_found`).',
      409: 'That would leave the channel without an admin (`last_channel_admin`).',
    },
    handler: ({ caller, params, body }) => addChannelMember(ctx, caller, params.channel_id, body),
  });

  routes.add({
    method: 'delete',
    path: '/v1/channels/:channel_id/members/:uid',
    tag: TAG,
    summary: 'Remove a channel member, or leave',
    description:
      'A channel admin may remove anyone; any member may remove themself (leave). Once out, the member no ' +
      'longer sees messages they saw only through this channel. The last admin cannot leave or be removed ' +
      '(409 `last_channel_admin`): make another member an admin first, or delete the channel. Needs ' +
      '`messages.write`.',
    auth: 'required',
    params: schemas.ChannelMemberParam,
    response: schemas.ChannelMemberRemoved,
    errors: {
      403: ADMINS_ONLY,
      404: 'No such channel (`channel_not_found`), or that user is not a member (`member_not_found`).',
      409: 'That would leave the channel without an admin (`last_channel_admin`).',
    },
    handler: ({ caller, params }) => removeChannelMember(ctx, caller, params.channel_id, params.uid),
  });

  routes.add({
    method: 'get',
    path: '/v1/channels/:channel_id/messages',
    tag: TAG,
    summary: 'Messages in a channel',
    description:
      'Members only. The messages included in the channel, newest first, as a PaginatedMessagesResponse ' +
      '(`skip` ≥ 0, `limit` 1–100, default 15). Needs `messages.read`.',
    auth: 'required',
    cacheable: true,
    params: schemas.ChannelIdParam,
    query: schemas.ChannelMessagesQuery,
    response: PaginatedMessages,
    errors: { 403: MEMBERS_ONLY, 404: NOT_FOUND },
    handler: ({ caller, params, query }) => listChannelMessages(ctx, caller, params.channel_id, query),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/:message_id/channels',
    tag: TAG,
    summary: "Replace a message's channels",
    description:
      'Body `{channel_ids: [...]}` (at most 100; duplicates ignored). You must be able to see the message ' +
      'and belong to every listed channel. The list replaces the message’s channels **among the channels ' +
      'you belong to**: those you are in but did not list lose the message, those listed gain it, and ' +
      'inclusions in channels you are not in stay (you cannot detach a message from a channel you are not ' +
      'in). An empty list removes it from all your channels. One transaction. Answers `channel_ids`: the ' +
      'channels holding the message that you belong to, by id. Needs `messages.write`.',
    auth: 'required',
    params: MessageIdParam,
    body: schemas.UpdateChannelsInput,
    response: schemas.UpdateChannelsResponse,
    errors: {
      403: 'messages.write missing (`insufficient_scope`), or you are not a member of a listed channel (`not_channel_member`).',
      404: 'The message is missing or not visible to you (`message_not_found`), or a listed channel does not exist (`channel_not_found`).',
    },
    handler: ({ caller, params, body }) =>
      setMessageChannels(ctx, caller, params.message_id, body.channel_ids),
  });
}
