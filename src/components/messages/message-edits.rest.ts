// /v1 message edit routes:
//   DELETE /v1/messages/:message_id                    delete a message (?delete_descendants), author or manager
//   DELETE /v1/messages/batch                          delete several, per-message errors
//   PATCH  /v1/messages/:message_id/public             public flag, author or manager
//   PATCH  /v1/messages/public/batch                   public flag on several
//   PATCH  /v1/messages/:message_id/subject            add a subject once, author or manager
//   PATCH  /v1/messages/:message_id/content            replace the content (history kept), author or manager
//   GET    /v1/messages/:message_id/edits              previous contents, oldest first, for any viewer
//   GET    /v1/messages/tags                           distinct tags of the visible messages
//   PATCH  /v1/messages/:message_id/tags               replace tags, anyone who can see it
//   PATCH  /v1/messages/tags/batch                     replace tags on several
//   PATCH  /v1/messages/:message_id/reply_order        order of children, author or manager
//   PATCH  /v1/messages/:message_id/default_outgoing   default continuation child, author or manager
//   POST   /v1/messages/:message_id/read               read state on the caller's receivers edge
//   PUT    /v1/messages/:message_id/bookmark           save (idempotent)
//   DELETE /v1/messages/:message_id/bookmark           unsave
//   GET    /v1/messages/bookmarks                      the caller's saved messages, newest bookmark first
// Literal paths (batch, tags, bookmarks, public/batch) coexist with :message_id because the route
// table registers literal segments first.
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { bookmarkMessage, listBookmarks, unbookmarkMessage } from './bookmarks.js';
import { deleteMessage, deleteMessagesBatch } from './delete-messages.js';
import { editMessageContent, listMessageEdits } from './edit-content.js';
import { listTags } from './list-tags.js';
import { markRead } from './mark-read.js';
import * as schemas from './message-edits.schemas.js';
import { MAX_CONTENT_CHARS, MessageIdParam, MessageOutput, PaginatedMessages } from './messages.schemas.js';
import { setMessageDefaultOutgoing, setMessageReplyOrder } from './set-branching.js';
import { setMessagePublic, setMessagesPublic } from './set-public.js';
import { setMessageSubject } from './set-subject.js';
import { setMessageTags, setMessagesTags } from './set-tags.js';

const TAG = 'messages';
const NOT_FOUND = 'Not found, or not visible to you (the same answer).';
const AUTHOR_ONLY =
  'messages.write missing, or you are neither the author nor one of its managers (no admin override).';
const MANAGER_NOTE =
  ' A manager acts on its managed users’ messages that it can see; for the others it acts as the managed ' +
  'user (act-as or delegate).';

export function mountMessageEditRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'delete',
    path: '/v1/messages/:message_id',
    tag: TAG,
    summary: 'Delete a message',
    description:
      'Only the author or one of the author’s managers may delete; no admin override. Without ' +
      '`delete_descendants` the message goes with all its edges (stitches, recipients, bookmarks, reactions, ' +
      'channel inclusions) and its reply children stay, each becoming the root of its own thread (its parent_id ' +
      'becomes null and it and its replies get its id as root_id). With `delete_descendants=true` the whole ' +
      'reply subtree goes, but only when you may delete every message in it: one you did not write (or whose ' +
      'author you do not manage), or cannot see, makes it 403 and nothing is deleted. Answers the deleted ids. ' +
      'Needs `messages.write`.' +
      MANAGER_NOTE,
    auth: 'required',
    params: MessageIdParam,
    query: schemas.DeleteQuery,
    response: schemas.DeleteResponse,
    errors: { 403: AUTHOR_ONLY, 404: NOT_FOUND },
    handler: ({ caller, params, query }) =>
      deleteMessage(ctx, caller, params.message_id, query.delete_descendants),
  });

  routes.add({
    method: 'delete',
    path: '/v1/messages/batch',
    tag: TAG,
    summary: 'Delete several messages',
    description:
      'Body `{message_ids (1–100), delete_descendants = false}`. Each message is deleted as DELETE ' +
      '/v1/messages/{message_id} would, all in one transaction; a message that cannot be deleted is reported in ' +
      '`errors` (`{message_id, status, code, detail}`: 404 missing or invisible, 403 not yours or a subtree you ' +
      'may not delete entirely) and the others are still deleted. `deleted` lists every id removed, descendants ' +
      'included. Needs `messages.write`.',
    auth: 'required',
    body: schemas.BatchDeleteBody,
    response: schemas.BatchDeleteResponse,
    errors: { 403: 'messages.write missing.' },
    handler: ({ caller, body }) =>
      deleteMessagesBatch(ctx, caller, body.message_ids, body.delete_descendants),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/:message_id/public',
    tag: TAG,
    summary: 'Make a message public or private',
    description:
      'Body `{public: boolean}`. Author or manager only. A public message is readable by anyone, also at ' +
      '{public_url}/messages/{id}. Answers the message as you now see it. Needs `messages.write`.' +
      MANAGER_NOTE,
    auth: 'required',
    params: MessageIdParam,
    body: schemas.PublicBody,
    response: MessageOutput,
    errors: { 403: AUTHOR_ONLY, 404: NOT_FOUND },
    handler: ({ caller, params, body }) => setMessagePublic(ctx, caller, params.message_id, body.public),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/public/batch',
    tag: TAG,
    summary: 'Set the public flag of several messages',
    description:
      'Body `{message_ids (1–100), public}`. Sets the flag on every message you may change (author or manager) ' +
      'and reports each other one in `errors` (404 missing or invisible, 403 not yours), in one transaction. ' +
      'Needs `messages.write`.',
    auth: 'required',
    body: schemas.BatchPublicBody,
    response: schemas.BatchUpdateResponse,
    errors: { 403: 'messages.write missing.' },
    handler: ({ caller, body }) => setMessagesPublic(ctx, caller, body.message_ids, body.public),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/:message_id/subject',
    tag: TAG,
    summary: 'Add a subject',
    description:
      'Body `{subject}` (trimmed, at most 72 characters). A subject can be added once to a message that has ' +
      'none and never changed. Author or manager only. Needs `messages.write`.' +
      MANAGER_NOTE,
    auth: 'required',
    missingIsBadRequest: true,
    params: MessageIdParam,
    body: schemas.SubjectBody,
    response: MessageOutput,
    errors: {
      400: 'The message already has a subject (`subject_already_set`), or the subject is missing or blank.',
      403: AUTHOR_ONLY,
      404: NOT_FOUND,
      422: 'The subject is longer than 72 characters, or not a string.',
    },
    handler: ({ caller, params, body }) => setMessageSubject(ctx, caller, params.message_id, body.subject),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/:message_id/content',
    tag: TAG,
    summary: 'Edit the content of a message',
    description:
      `Body \`{content}\` (1–${MAX_CONTENT_CHARS} characters, the rule of posting). Author or manager only. The ` +
      'content it replaces is kept and listed by GET /v1/messages/{message_id}/edits (the newest ' +
      `${schemas.MAX_KEPT_VERSIONS}), and \`edited_at\` is set. Content identical to the current one changes ` +
      'nothing (no history entry, `edited_at` unchanged, no event) and answers the message. A change tells the ' +
      'message’s audience (author, recipients, channel members) `message.updated` with the change `content` on ' +
      'sockets and subscriptions. An edit pings nobody: mentions are read when a message is posted. Spends the ' +
      'account’s posting budget. Needs `messages.write`.' +
      MANAGER_NOTE,
    auth: 'required',
    accountLimit: (limits) => limits.postsByAccount,
    params: MessageIdParam,
    body: schemas.ContentBody,
    response: MessageOutput,
    errors: {
      403: AUTHOR_ONLY,
      404: NOT_FOUND,
      422: `The content is missing, empty, longer than ${MAX_CONTENT_CHARS} characters, or not a string.`,
    },
    handler: ({ caller, params, body }) => editMessageContent(ctx, caller, params.message_id, body.content),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/:message_id/edits',
    tag: TAG,
    summary: 'List the previous contents of a message',
    description:
      'The contents a message you can see held before its edits, oldest first, each with when and by whom ' +
      `it was replaced; at most the newest ${schemas.MAX_KEPT_VERSIONS} (older ones are dropped). Empty when ` +
      'the message was never edited. Deleting the message deletes them. Needs `messages.read`.',
    auth: 'required',
    params: MessageIdParam,
    response: schemas.MessageEdits,
    errors: { 403: 'messages.read missing.', 404: NOT_FOUND },
    handler: ({ caller, params }) => listMessageEdits(ctx, caller, params.message_id),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/tags',
    tag: TAG,
    summary: 'List tags',
    description:
      'The distinct tags, sorted, of every message you can see (public ones included). Needs `messages.read`.',
    auth: 'required',
    response: schemas.TagsResponse,
    errors: { 403: 'messages.read missing.' },
    handler: ({ caller }) => listTags(ctx, caller),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/:message_id/tags',
    tag: TAG,
    summary: 'Replace the tags of a message',
    description:
      'Body `{tags: [...]}` (at most 32; each 1–64 of `A-Z a-z 0-9 _ . : / -`, stored lower-case, repeats ' +
      'dropped; an empty list clears them). Anyone who can see the message may tag it. Needs `messages.write`.',
    auth: 'required',
    missingIsBadRequest: true,
    params: MessageIdParam,
    body: schemas.TagsBody,
    response: MessageOutput,
    errors: {
      400: 'The tags field is missing.',
      403: 'messages.write missing.',
      404: NOT_FOUND,
      422: 'A tag is not 1–64 of the allowed characters, or there are too many.',
    },
    handler: ({ caller, params, body }) => setMessageTags(ctx, caller, params.message_id, body.tags),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/tags/batch',
    tag: TAG,
    summary: 'Replace the tags of several messages',
    description:
      'Body `{message_ids (1–100), tags}`. Replaces the tag set of every listed message you can see, in one ' +
      'transaction; each other id is reported in `errors` as 404. Needs `messages.write`.',
    auth: 'required',
    missingIsBadRequest: true,
    body: schemas.BatchTagsBody,
    response: schemas.BatchUpdateResponse,
    errors: {
      400: 'The tags or message_ids field is missing.',
      403: 'messages.write missing.',
      422: 'A tag or id is malformed.',
    },
    handler: ({ caller, body }) => setMessagesTags(ctx, caller, body.message_ids, body.tags),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/:message_id/reply_order',
    tag: TAG,
    summary: 'Order the children of a message',
    description:
      'Body `{reply_order: [ids] | null}`: a partial list of the message’s children (reply children and stitch ' +
      'children you can see now) in the order you want; null clears it. Author or manager only. A child that ' +
      'is later deleted, or that the viewer cannot see, drops out of `reply_order` in every answer. Needs ' +
      '`messages.write`.' +
      MANAGER_NOTE,
    auth: 'required',
    invalidBodyIsBadRequest: true,
    params: MessageIdParam,
    body: schemas.ReplyOrderBody,
    response: MessageOutput,
    errors: {
      400: 'reply_order is missing, or not a list of strings or null.',
      403: AUTHOR_ONLY,
      404: NOT_FOUND,
      422: 'An id is not a current visible child, or is repeated (`invalid_reply_ids`).',
    },
    handler: ({ caller, params, body }) =>
      setMessageReplyOrder(ctx, caller, params.message_id, body.reply_order),
  });

  routes.add({
    method: 'patch',
    path: '/v1/messages/:message_id/default_outgoing',
    tag: TAG,
    summary: 'Choose the default continuation of a message',
    description:
      'Body `{default_outgoing: id | null}`: one reply child or stitch child you can see now marks the default ' +
      'branch; null clears it. Independent of reply_order. Author or manager only. A child later deleted or ' +
      'invisible to the viewer shows as null. Needs `messages.write`.' +
      MANAGER_NOTE,
    auth: 'required',
    invalidBodyIsBadRequest: true,
    params: MessageIdParam,
    body: schemas.DefaultOutgoingBody,
    response: MessageOutput,
    errors: {
      400: 'default_outgoing is missing, or not a string or null.',
      403: AUTHOR_ONLY,
      404: NOT_FOUND,
      422: 'The id is not a current visible child (`invalid_default_outgoing`).',
    },
    handler: ({ caller, params, body }) =>
      setMessageDefaultOutgoing(ctx, caller, params.message_id, body.default_outgoing),
  });

  routes.add({
    method: 'post',
    path: '/v1/messages/:message_id/read',
    tag: TAG,
    summary: 'Mark a message read or unread',
    description:
      'Body `{read: true | false}` (default true). Read state lives on your receivers edge (you are a CC or BCC ' +
      'recipient): true sets `read_at` (a message already read keeps its first read time), false clears it. ' +
      'For a message you can see without being a recipient (yours, public, in a channel) nothing is stored and ' +
      'the answer is `read: false`. Needs `messages.write` (it updates read state).',
    auth: 'required',
    params: MessageIdParam,
    body: schemas.ReadBody,
    response: schemas.ReadState,
    errors: { 403: 'messages.write missing.', 404: NOT_FOUND },
    handler: ({ caller, params, body }) => markRead(ctx, caller, params.message_id, body.read),
  });

  routes.add({
    method: 'put',
    path: '/v1/messages/:message_id/bookmark',
    tag: TAG,
    summary: 'Save a message',
    description:
      'Adds a message you can see to your bookmarks. Idempotent: saving it again keeps the first `saved_at`. ' +
      'Needs `messages.write`.',
    auth: 'required',
    params: MessageIdParam,
    response: schemas.BookmarkState,
    errors: { 403: 'messages.write missing.', 404: NOT_FOUND },
    handler: ({ caller, params }) => bookmarkMessage(ctx, caller, params.message_id),
  });

  routes.add({
    method: 'delete',
    path: '/v1/messages/:message_id/bookmark',
    tag: TAG,
    summary: 'Unsave a message',
    description:
      'Removes a message you can see from your bookmarks; answers `saved: false` also when it was not saved. ' +
      'A message you can no longer see is 404 (it is not listed among your bookmarks either). Needs ' +
      '`messages.write`.',
    auth: 'required',
    params: MessageIdParam,
    response: schemas.BookmarkState,
    errors: { 403: 'messages.write missing.', 404: NOT_FOUND },
    handler: ({ caller, params }) => unbookmarkMessage(ctx, caller, params.message_id),
  });

  routes.add({
    method: 'get',
    path: '/v1/messages/bookmarks',
    tag: TAG,
    summary: 'List saved messages',
    description:
      'Your bookmarked messages that you can still see, newest bookmark first (`skip`, `limit` default 15). ' +
      'Needs `messages.read`.',
    auth: 'required',
    query: schemas.BookmarksQuery,
    response: PaginatedMessages,
    errors: { 403: 'messages.read missing.' },
    handler: ({ caller, query }) => listBookmarks(ctx, caller, query),
  });
}
