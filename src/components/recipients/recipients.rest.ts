// /v1 recipient routes:
//   POST   /v1/recipients/add      add recipients (CC/BCC) to visible messages, optionally propagated
//   DELETE /v1/recipients/remove   take a recipient off messages, optionally off their descendants
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { addRecipients } from './add-recipients.js';
import { removeRecipients } from './remove-recipients.js';
import {
  AddRecipientsBody,
  AddRecipientsResponse,
  RemoveRecipientsBody,
  RemoveRecipientsResponse,
} from './recipients.schemas.js';

const TAG = 'recipients';

export function mountRecipientRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'post',
    path: '/v1/recipients/add',
    tag: TAG,
    summary: 'Add recipients to messages',
    description:
      'Adds each recipient to each named message (`message_id` and/or `message_ids`, at most 100), and with the ' +
      'deprecated `propagation.strategy` to more of the thread: NONE (default) only the named messages; ANCESTORS ' +
      'also their reply ancestors, walking up while each parent is visible to you and stopping at the first one ' +
      'that is not; TREE every message of their threads that you can see. Anyone who can see a message may add ' +
      'recipients to it. A recipient object with `public: false` is a BCC: listed only to the author, to you (the ' +
      'adder) and to that recipient. Idempotent: a recipient whose entry you are shown is reported under ' +
      '`unchanged` and keeps its first `added_by` and its CC/BCC flag. A recipient you are shown no entry of is ' +
      'added, whether or not it already held a BCC entry someone else added: your entry is laid over the hidden ' +
      'one and is the one listed from then on, under the same CC/BCC rule (your `added_by` and flag, `read_at` ' +
      'null, notified unless `notify: false`), and removing it later uncovers the hidden entry again. So no answer, ' +
      'read-back or later removal tells you whether someone was a hidden BCC recipient. All or nothing: an ' +
      'invisible message or an unknown user writes nothing. `notify: false` suppresses the "added" ' +
      'notification. Needs `messages.write`.',
    auth: 'required',
    accountLimit: (limits) => limits.recipientAddsByAccount,
    missingIsBadRequest: true,
    body: AddRecipientsBody,
    response: AddRecipientsResponse,
    errors: {
      400: '`missing_field`: no message_id / message_ids, or no recipients (absent or empty).',
      403: 'messages.write missing.',
      404: '`message_not_found`: a named message is missing or not visible to you; `user_not_found`: an unknown recipient.',
      422: 'Malformed ids, recipients or strategy.',
    },
    handler: async ({ caller, body }) => addRecipients(ctx, caller, body),
  });

  routes.add({
    method: 'delete',
    path: '/v1/recipients/remove',
    tag: TAG,
    summary: 'Remove a recipient from messages',
    description:
      'Takes `recipient_uid` off each named message (`message_id` and/or `message_ids`, at most 100); with ' +
      '`propagate_to_descendants` also off every reply descendant (walking down only through messages you can ' +
      "see). On each message the author (or the author's manager) and the recipient itself take the recipient " +
      'off altogether; whoever added the entry you are shown may take off that entry, which uncovers any BCC ' +
      'entry it had been laid over (the recipient keeps that access; you are shown nothing of it). On a named ' +
      'message anyone else gets 403 and nothing is removed; on a descendant such an entry is left in place and ' +
      'listed under `unchanged`. A message where you are shown no entry of the recipient (none, or someone ' +
      "else's BCC entry) is listed under `unchanged` and left as it is, exactly as if the recipient had none. " +
      'Needs `messages.write`.',
    auth: 'required',
    missingIsBadRequest: true,
    body: RemoveRecipientsBody,
    response: RemoveRecipientsResponse,
    errors: {
      400: '`missing_field`: no recipient_uid, or no message_id / message_ids.',
      403: '`insufficient_scope` (messages.write missing), or `forbidden`: you may not remove that recipient from a named message.',
      404: '`message_not_found`: a named message is missing or not visible to you; `user_not_found`: no such recipient.',
      422: 'Malformed ids.',
    },
    handler: ({ caller, body }) => removeRecipients(ctx, caller, body),
  });
}
