// /v1 live routes (decision 031):
//   POST /v1/typing   say you are typing (or stop), with a short status; reaches live connections only
// Live frames go to connections that ask for them: GET /v1/ws/v1?live=true (events.rest.ts documents
// the socket; ServerFrame lists the frames).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { TypingInput, TypingResult } from './live.schemas.js';
import { setTyping } from './set-typing.js';
import { TYPING_EXPIRES_MS, TYPING_RENEW_MS } from './typing-board.js';

const TAG = 'live';

export function mountLiveRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'post',
    path: '/v1/typing',
    tag: TAG,
    summary: 'Say you are typing',
    description:
      'Shows that you are typing, with an optional one-line `status` (such as "searching the docs…"), to whoever ' +
      'could see what you are writing: with `message_id`, a reply to that message (its author, its CC recipients ' +
      "and the members of its channels you belong to; not its BCC recipients); with `channel_id`, the channel's " +
      'members; with `recipients`, those users (a new conversation). Give exactly one. It reaches connections ' +
      'opened with `/v1/ws/v1?live=true` as `typing.started` (again only when the status changes) and ' +
      `\`typing.stopped\`, never you. Renew within ${TYPING_RENEW_MS} ms to keep showing; it ends ` +
      `${TYPING_EXPIRES_MS / 1000} s after the last renewal, at once with \`"op": "stop"\`, and when your message ` +
      'lands there. It is ephemeral: not in the event log (no cursor, not replayed by `since`), not a webhook ' +
      '(a late "is typing" is false, and a webhook is retried for a day); a webhook bot that wants to see people ' +
      'type opens the socket with `live=true` beside its endpoint. Needs `messages.write`.',
    auth: 'required',
    accountLimit: (limits) => limits.typingByAccount,
    body: TypingInput,
    response: TypingResult,
    errors: {
      403: '`insufficient_scope`; `not_channel_member` for a channel you are not in.',
      404:
        '`message_not_found` (missing, or not visible to you: the same answer), `channel_not_found`, ' +
        '`user_not_found`.',
      422: 'No target or two, a status that is empty, longer than 64 characters or not one line, or yourself alone.',
    },
    handler: ({ caller, body }) => setTyping(ctx, caller, body),
  });
}
