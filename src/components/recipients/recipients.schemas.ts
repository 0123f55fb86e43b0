// Shapes of recipient add/remove requests and answers (validation and OpenAPI).
import { eachRequired, z } from '../../platform/openapi.js';
import { MessageId, RecipientList } from '../messages/messages.schemas.js';

export const MAX_MESSAGE_IDS = 100;

const MessageIds = z.array(MessageId).max(MAX_MESSAGE_IDS);

/**
 * The messages of a recipients change: `message_id`, a non-empty `message_ids`, or both
 * (add-recipients.ts namedMessageIds answers 400 missing_field otherwise). Inside allOf for the reason
 * contacts.schemas.ts gives for ACCOUNT_NAMED.
 */
const [oneId, someIds] = eachRequired('message_id', 'message_ids');
const MESSAGES_NAMED = {
  anyOf: [oneId!, { ...someIds!, properties: { message_ids: { minItems: 1 } } }],
};

export const PROPAGATION_STRATEGIES = ['NONE', 'ANCESTORS', 'TREE'] as const;
export type PropagationStrategy = (typeof PROPAGATION_STRATEGIES)[number];

export const AddRecipientsBody = z
  .object({
    message_id: MessageId.optional(),
    message_ids: MessageIds.optional(),
    recipients: RecipientList.openapi({
      // An empty list is the use case's 400 missing_field, not the schema's 422.
      minItems: 1,
      description:
        'At least one (400 otherwise): "tag", "@tag", "uid:<uid>", or {user_tag | uid, public = true, notify = true}.',
    }),
    propagation: z
      .object({ strategy: z.enum(PROPAGATION_STRATEGIES).default('NONE') })
      .strict()
      .optional()
      .openapi({
        deprecated: true,
        description:
          'Deprecated (resolve ids on the client and pass message_ids). NONE (default): the named messages; ' +
          'ANCESTORS: also their reply ancestors, walking up while each parent is visible to you and stopping ' +
          'at the first one that is not; TREE: every message of their threads that you can see.',
      }),
  })
  .strict()
  .openapi('AddRecipientsRequest', {
    description: 'Give `message_id`, a non-empty `message_ids`, or both (400 missing_field otherwise).',
    allOf: [MESSAGES_NAMED],
  });
export type AddRecipientsBody = z.infer<typeof AddRecipientsBody>;

export const RemoveRecipientsBody = z
  .object({
    recipient_uid: z.string().regex(/^[0-9a-f]{8}$/, 'must be 8 lowercase hex characters'),
    message_id: MessageId.optional(),
    message_ids: MessageIds.optional(),
    propagate_to_descendants: z.boolean().default(false),
  })
  .strict()
  .openapi('RemoveRecipientsRequest', {
    description: 'Give `message_id`, a non-empty `message_ids`, or both (400 missing_field otherwise).',
    allOf: [MESSAGES_NAMED],
  });
export type RemoveRecipientsBody = z.infer<typeof RemoveRecipientsBody>;

export const RecipientChange = z
  .object({ message_id: z.string(), uid: z.string() })
  .openapi('RecipientChange');
export type RecipientChange = z.infer<typeof RecipientChange>;

export const AddRecipientsResponse = z
  .object({
    message_ids: z.array(z.string()).openapi({ description: 'Every message the request touched.' }),
    added: z.array(RecipientChange).openapi({
      description: 'Entries this request added: new ones, and ones laid over a BCC entry you are not shown.',
    }),
    unchanged: z.array(RecipientChange).openapi({
      description: 'Entries you are already shown; they keep their first `added_by` and CC/BCC flag.',
    }),
  })
  .openapi('AddRecipientsResponse');
export type AddRecipientsResponse = z.infer<typeof AddRecipientsResponse>;

export const RemoveRecipientsResponse = z
  .object({
    message_ids: z.array(z.string()).openapi({ description: 'Every message the request looked at.' }),
    removed: z.array(RecipientChange).openapi({
      description:
        "Entries taken off: the recipient altogether when you are the message's author (or the author's " +
        'manager) or the recipient, else your own entry (which uncovers a hidden BCC entry under it, if any).',
    }),
    unchanged: z.array(RecipientChange).openapi({
      description:
        'Messages where you are shown no entry of the recipient (left as they are), and descendant entries you may not remove.',
    }),
  })
  .openapi('RemoveRecipientsResponse');
export type RemoveRecipientsResponse = z.infer<typeof RemoveRecipientsResponse>;
