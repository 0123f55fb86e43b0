// Shapes of user input and output (they validate requests and feed the OpenAPI document).
import { eachRequired, z } from '../../platform/openapi.js';
import { SCOPES } from '../../platform/auth/scopes.js';
import { queryInteger } from '../../platform/query-integer.js';

export const Uid = z.string().regex(/^[0-9a-f]{8}$/, 'must be 8 lowercase hex characters');

/** 2–32 of [A-Za-z0-9_.-], starting with a letter or digit; unique case-insensitively. */
export const UserTag = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$/,
    'must be 2–32 of A-Z a-z 0-9 _ . -, starting with a letter or digit',
  );

const Label = z.string().trim().min(1).max(64);

/** A display name, as created (POST /v1/managed/users) and as edited. */
const DisplayName = z.string().trim().min(1).max(100);

export const BotMetadata = z
  .object({
    modalities: z.array(Label).max(32).default([]),
    integrations: z.array(Label).max(32).default([]),
    versions: z.array(Label).max(64).default([]),
    context_origin_id: z
      .string()
      .regex(/^[0-9a-f]{8}$/)
      .nullable()
      .default(null),
  })
  .openapi('BotMetadata', {
    description:
      'What a bot accepts and produces. `context_origin_id` names a root message the bot may see: it, ' +
      'then its chain of `default_outgoing` children, is the bot’s starting context, which ' +
      'GET /v1/messages/{message_id}/context puts before every conversation the bot reads. It is shown ' +
      'only to the bot itself and its managers; anyone else is shown null.',
  });
export type BotMetadata = z.infer<typeof BotMetadata>;

export const UserOutput = z
  .object({
    uid: z.string(),
    user_tag: z.string(),
    display_name: z.string().nullable(),
    bio: z.string().nullable(),
    is_managed: z.boolean(),
    is_bot: z.boolean(),
    has_api_access: z.boolean(),
    created_at: z.string(),
    deactivated_at: z
      .string()
      .nullable()
      .openapi({
        description:
          'When a manager deactivated this managed user (or deleted it: a deleted one keeps its uid and tag ' +
          'so that its messages stay attributed); null while it is active. A deactivated user has no API ' +
          'access: its keys and sessions fail with 401.',
      }),
    // A union rather than .nullable(): zod-to-openapi would mark the shared BotMetadata component
    // itself nullable, and the create inputs that reuse it would then document a null they refuse.
    bot: z.union([BotMetadata, z.null()]),
  })
  .openapi('UserOutput');
export type UserOutput = z.infer<typeof UserOutput>;

export const Contact = z.object({ kind: z.string(), value: z.string(), verified_at: z.string().nullable() });

export const MeOutput = UserOutput.extend({
  scopes: z.array(z.enum(SCOPES)),
  contacts: z.array(Contact),
}).openapi('MeOutput');
export type MeOutput = z.infer<typeof MeOutput>;

/** Bot metadata in a profile edit: only the fields sent change, so nothing defaults here. */
const BotMetadataPatch = z
  .object({
    modalities: z.array(Label).max(32).optional(),
    integrations: z.array(Label).max(32).optional(),
    versions: z.array(Label).max(64).optional(),
    context_origin_id: z
      .string()
      .regex(/^[0-9a-f]{8}$/)
      .nullable()
      .optional(),
  })
  .strict();

/**
 * The editable profile: one rule for the caller's own edit (POST /v1/users/profile) and a manager's
 * edit of a managed user (PATCH /v1/managed/users/{uid}). Only the fields sent change.
 */
const ProfileFields = {
  display_name: DisplayName.nullable().optional(),
  bio: z.string().max(2000).nullable().optional(),
  is_bot: z.boolean().optional(),
  bot: BotMetadataPatch.optional(),
};

export const ProfileUpdateInput = z
  .object({
    ...ProfileFields,
    context_origin_id: z
      .string()
      .regex(/^[0-9a-f]{8}$/)
      .nullable()
      .optional(),
  })
  .strict()
  .openapi('ProfileUpdateInput', {
    description:
      'Only the fields sent change. `bot` metadata applies when `is_bot` is true; `context_origin_id` may be ' +
      'given at the top level or inside `bot` (the top level wins). A non-null `context_origin_id` must name ' +
      'a root message (no reply parent) that the account may see, on an account that is a bot once the ' +
      'edit is done; null clears it. Contacts are added through /v1/auth/contacts/*.',
  });
export type ProfileUpdateInput = z.infer<typeof ProfileUpdateInput>;

export const ManagedUserCreateInput = z
  .object({
    user_tag: UserTag,
    display_name: DisplayName.optional(),
    is_bot: z.boolean().default(false),
    bot: BotMetadata.optional(),
  })
  .strict()
  .openapi('ManagedUserCreateInput');
export type ManagedUserCreateInput = z.infer<typeof ManagedUserCreateInput>;

export const UserList = z.object({ users: z.array(UserOutput) }).openapi('UserList');

export const ManagedUserUpdateInput = z
  .object(ProfileFields)
  .strict()
  .openapi('ManagedUserUpdateInput', {
    description:
      'Only the fields sent change, with the rules of POST /v1/users/profile; `bot` metadata applies when ' +
      '`is_bot` is true.',
  });
export type ManagedUserUpdateInput = z.infer<typeof ManagedUserUpdateInput>;

export const ManagedUserDeleted = z
  .object({ uid: z.string(), deleted: z.literal(true) })
  .openapi('ManagedUserDeleteResponse');

export const Manager = z
  .object({
    uid: z.string(),
    user_tag: z.string(),
    display_name: z.string().nullable(),
    since: z.string().openapi({ description: 'When this user became a manager.' }),
  })
  .openapi('Manager');
export type Manager = z.infer<typeof Manager>;

/** Who sent an invitation to manage a user: a current manager of it. */
const Inviter = z.object({ uid: z.string(), user_tag: z.string() }).openapi('Inviter');

export const PendingManager = z
  .object({
    uid: z.string(),
    user_tag: z.string(),
    display_name: z.string().nullable(),
    invited_by: Inviter,
    invited_at: z.string(),
  })
  .openapi('PendingManager', {
    description:
      'A user invited to manage this managed user who has not accepted yet: until it accepts ' +
      '(POST /v1/managed/invitations/{uid}/accept) it is no manager and lends the managed user nothing.',
  });
export type PendingManager = z.infer<typeof PendingManager>;

export const ManagerList = z
  .object({
    managers: z.array(Manager).openapi({ description: 'Oldest manager first.' }),
    invitations: z.array(PendingManager).openapi({
      description: 'Pending invitations to manage it, oldest first; none of these users is a manager yet.',
    }),
  })
  .openapi('ManagerList');
export type ManagerList = z.infer<typeof ManagerList>;

export const ManagerInvitation = z
  .object({
    user: UserOutput,
    invited_by: Inviter,
    invited_at: z.string(),
  })
  .openapi('ManagerInvitation', {
    description:
      'An invitation to the caller to manage `user`, sent by one of its managers. Accepting makes the ' +
      'caller a manager; declining, the inviter’s removal or the user’s deletion ends it.',
  });
export type ManagerInvitation = z.infer<typeof ManagerInvitation>;

export const ManagerInvitationList = z
  .object({
    invitations: z.array(ManagerInvitation).openapi({ description: 'Oldest first.' }),
  })
  .openapi('ManagerInvitationList');

export const InvitationDeclined = z
  .object({ uid: z.string(), declined: z.literal(true) })
  .openapi('ManagerInvitationDeclined');

export const ManagerAddInput = z
  .object({
    user_tag: z
      .string()
      .transform((tag) => tag.replace(/^@/, ''))
      .pipe(UserTag)
      .optional()
      // The pipe hides the rule from zod-to-openapi; this states it, with the optional leading @.
      .openapi({ type: 'string', pattern: '^@?[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$', example: 'bob' }),
    uid: Uid.optional(),
  })
  .strict()
  .refine((m) => (m.user_tag === undefined) !== (m.uid === undefined), 'give exactly one of user_tag or uid')
  .openapi('ManagerAddRequest', {
    description:
      'The user to invite as a manager: exactly one of `user_tag` or `uid` (422 for both or neither).',
    oneOf: eachRequired('user_tag', 'uid'),
  });
export type ManagerAddInput = z.infer<typeof ManagerAddInput>;

export const UserTagParam = z.object({
  user_tag: z
    .string()
    .transform((tag) => tag.replace(/^@/, ''))
    .pipe(UserTag)
    // The pipe hides the rule from zod-to-openapi; this states it, with the optional leading @.
    .openapi({ type: 'string', pattern: '^@?[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$', example: 'ada' }),
});
export const UidParam = z.object({ uid: Uid });
export const ManagerParam = z.object({ uid: Uid, manager_uid: Uid });

export const USER_SEARCH_MAX_CHARS = 64;
export const USER_SEARCH_MAX_LIMIT = 50;

/**
 * GET /v1/users/search and searchUsers. The text is trimmed and loses a leading @ (as a mention
 * writes a tag) before its length is checked, so "  @ada " searches for "ada".
 */
export const UserSearchQuery = z.object({
  q: z
    .string()
    .transform((text) => text.trim().replace(/^@\s*/, ''))
    .pipe(
      z
        .string()
        .min(1, 'must hold a character other than whitespace and a leading @')
        .max(USER_SEARCH_MAX_CHARS, `must be at most ${USER_SEARCH_MAX_CHARS} characters once trimmed`),
    )
    // The pipe hides the rule from zod-to-openapi; this states it (the length counts after trimming,
    // so no maxLength: a longer raw value with whitespace around is accepted).
    .openapi({
      type: 'string',
      minLength: 1,
      description:
        `1–${USER_SEARCH_MAX_CHARS} characters once trimmed and without a leading @. Matches users whose ` +
        'tag starts with it, or whose display name has, for each word of it, a word starting with that ' +
        'word; both compared case-insensitively.',
      example: 'ada',
    }),
  limit: queryInteger({ min: 1, max: USER_SEARCH_MAX_LIMIT })
    .default(10)
    .openapi({ description: `How many users to answer at most, 1–${USER_SEARCH_MAX_LIMIT}.`, example: 10 }),
});
export type UserSearchQuery = z.infer<typeof UserSearchQuery>;
