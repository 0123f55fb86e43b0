// /v1 message routes:
//   POST /v1/messages                 post one or several messages (per-item results, Idempotency-Key)
//   GET  /v1/messages/:message_id     one message (404 when missing or not visible)
//   POST /v1/messages/import/quote    post messages quoted from elsewhere, with import_info attribution
// Both count each message against the post limit, and refuse a request whose recipients summed over
// its messages exceed SKEIN_MAX_DELIVERIES_PER_POST, before anything is written (post-messages.ts).
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import * as schemas from './messages.schemas.js';
import { bodyItems, postedMessageCount, postMessages } from './post-messages.js';
import { readMessage } from './read-message.js';

const TAG = 'messages';

export function idempotencyKeyOf(header: (name: string) => string | undefined): string | undefined {
  const key = header('idempotency-key');
  if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new AppError('bad_request', 'Idempotency-Key must be 1–255 visible ASCII characters.');
  }
  return key;
}

/** What both post routes answer besides their per-item results. */
const POST_ERRORS = {
  400: 'The body is none of the three forms.',
  403: 'messages.write missing.',
  422:
    '`validation_error` of type `too_many_deliveries`: the recipients summed over the messages (with those ' +
    '`"audience": "parent"` adds) exceed SKEIN_MAX_DELIVERIES_PER_POST (default 1000); nothing is written.',
  429:
    'Each message counts against SKEIN_RATE_LIMIT_POSTS_PER_MIN: the request does not fit in what is left ' +
    '(RateLimit-Remaining says what does); nothing is written. See Retry-After.',
};

export function mountMessageRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/messages/:message_id',
    tag: TAG,
    summary: 'Read a message',
    auth: 'required',
    cacheable: true,
    params: schemas.MessageIdParam,
    response: schemas.MessageOutput,
    errors: { 404: 'Not found, or not visible to you (the same answer).' },
    handler: ({ caller, params }) => readMessage(ctx, caller, params.message_id),
  });

  routes.add({
    method: 'post',
    path: '/v1/messages',
    tag: TAG,
    summary: 'Post messages',
    description:
      'Body: one MessageInput, {messages: [...]}, or an array (at most 100). Answers one MessageCreateResult per ' +
      'input, in order; items fail on their own (unknown recipient 404, invisible parent 404, channel you are not ' +
      'in 403, invalid item 422). In a multi-message input each item after the first is a reply to the previous ' +
      'successful one (its own parent_id is then ignored). With an `Idempotency-Key` header, the same key from you ' +
      'within 24 hours answers the first answer again and creates nothing. Needs `messages.write`.',
    auth: 'required',
    accountLimit: (limits) => limits.postsByAccount,
    accountLimitCost: (body) => postedMessageCount(bodyItems(body)),
    invalidBodyIsBadRequest: true,
    body: schemas.MessagesPostBody,
    documentedBody: schemas.MessagesPostBodyDocumented,
    headers: schemas.IdempotencyHeaders,
    response: schemas.MessageCreateResults,
    errors: POST_ERRORS,
    handler: ({ caller, body, header }) =>
      postMessages(ctx, caller, bodyItems(body), idempotencyKeyOf(header)),
  });

  routes.add({
    method: 'post',
    path: '/v1/messages/import/quote',
    tag: TAG,
    summary: 'Import quoted messages',
    description:
      'Like POST /v1/messages (same three body forms, chaining, per-item results and Idempotency-Key, kept ' +
      'apart from the keys of plain posts), but every item must carry `import_info` {source, author_name, ' +
      'author_id?, url?, original_timestamp?}: the external author of the quoted text. The message is authored ' +
      'by the caller (who vouches for the quote); `import_info` is shown on every read. `timestamp` is the ' +
      'import time; the original time is `import_info.original_timestamp`. Needs `messages.write`.',
    auth: 'required',
    accountLimit: (limits) => limits.postsByAccount,
    accountLimitCost: (body) => postedMessageCount(bodyItems(body)),
    invalidBodyIsBadRequest: true,
    body: schemas.MessagesPostBody,
    documentedBody: schemas.ImportPostBodyDocumented,
    headers: schemas.IdempotencyHeaders,
    response: schemas.MessageCreateResults,
    errors: POST_ERRORS,
    handler: ({ caller, body, header }) =>
      postMessages(ctx, caller, bodyItems(body), idempotencyKeyOf(header), 'import'),
  });
}
