// Shapes of channel input and output (they validate requests and feed the OpenAPI document).
import { eachRequired, z } from '../../platform/openapi.js';
import { MessageId, pageQuery } from '../messages/messages.schemas.js';
import { Uid, UserTag } from '../users/users.schemas.js';

export const ChannelId = z.string().regex(/^[0-9a-f]{8}$/, 'must be 8 lowercase hex characters');
export const ChannelIdParam = z.object({ channel_id: ChannelId });
export const ChannelMemberParam = z.object({ channel_id: ChannelId, uid: Uid });

export const DISPLAY_NAME_MAX = 100;
export const DESCRIPTION_MAX = 2000;
export const MAX_CHANNELS_PER_MESSAGE = 100;

const DisplayName = z.string().trim().min(1).max(DISPLAY_NAME_MAX);
const Description = z.string().max(DESCRIPTION_MAX);

export const ChannelCreateInput = z
  .object({
    display_name: DisplayName,
    description: Description.nullable().optional(),
  })
  .strict()
  .openapi('ChannelCreateRequest');
export type ChannelCreateInput = z.infer<typeof ChannelCreateInput>;

export const ChannelUpdateInput = z
  .object({
    display_name: DisplayName.optional(),
    description: Description.nullable().optional().openapi({ description: 'null clears it.' }),
  })
  .strict()
  .openapi('ChannelUpdateRequest', { description: 'Only the fields sent change.' });
export type ChannelUpdateInput = z.infer<typeof ChannelUpdateInput>;

export const ChannelOutput = z
  .object({
    id: z.string(),
    display_name: z.string(),
    description: z.string().nullable(),
    created_at: z.string(),
    created_by: z.string().openapi({ description: 'uid of the creator.' }),
    is_admin: z.boolean().openapi({ description: 'Whether you are an admin of this channel.' }),
    member_count: z.number().int(),
  })
  .openapi('ChannelOutput');
export type ChannelOutput = z.infer<typeof ChannelOutput>;

export const ChannelList = z.array(ChannelOutput);

export const ChannelDeleted = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .openapi('ChannelDeleteResponse');

export const ChannelMember = z
  .object({ uid: z.string(), user_tag: z.string(), is_admin: z.boolean(), joined_at: z.string() })
  .openapi('ChannelMember');
export type ChannelMember = z.infer<typeof ChannelMember>;

export const ChannelMemberList = z.object({ members: z.array(ChannelMember) }).openapi('ChannelMemberList');

export const ChannelMemberInput = z
  .object({
    user_tag: z
      .string()
      .transform((tag) => tag.replace(/^@/, ''))
      .pipe(UserTag)
      .optional()
      // The pipe hides the rule from zod-to-openapi; this states it, with the optional leading @.
      .openapi({ type: 'string', pattern: '^@?[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$', example: 'bob' }),
    uid: Uid.optional(),
    is_admin: z.boolean().optional().openapi({
      description: 'Default false for a new member; an existing member keeps its flag unless this is sent.',
    }),
  })
  .strict()
  .refine((m) => (m.user_tag === undefined) !== (m.uid === undefined), 'give exactly one of user_tag or uid')
  .openapi('ChannelMemberAddRequest', {
    description: 'Exactly one of `user_tag` or `uid` (422 for both or neither).',
    oneOf: eachRequired('user_tag', 'uid'),
  });
export type ChannelMemberInput = z.infer<typeof ChannelMemberInput>;

export const ChannelMemberRemoved = z
  .object({ channel_id: z.string(), uid: z.string(), removed: z.literal(true) })
  .openapi('ChannelMemberRemoveResponse');

export const ChannelMessagesQuery = z.object(pageQuery(15));
export type ChannelMessagesQuery = z.infer<typeof ChannelMessagesQuery>;

export const UpdateChannelsInput = z
  .object({
    channel_ids: z
      .array(ChannelId)
      .max(MAX_CHANNELS_PER_MESSAGE)
      .transform((ids) => [...new Set(ids)]),
  })
  .strict()
  .openapi('UpdateChannelsRequest');
export type UpdateChannelsInput = z.infer<typeof UpdateChannelsInput>;

export const UpdateChannelsResponse = z
  .object({
    message_id: MessageId,
    channel_ids: z
      .array(z.string())
      .openapi({ description: 'Channels holding the message that you belong to, by id.' }),
  })
  .openapi('UpdateChannelsResponse');
export type UpdateChannelsResponse = z.infer<typeof UpdateChannelsResponse>;
