// /v1 live routes (decision 031):
//   POST /v1/typing                      say you are typing (or stop), with a short status
//   POST /v1/streams                     open a streamed reply (a post's input, written in chunks)
//   POST /v1/streams/:id/chunks          append chunk seq (the writer)
//   POST /v1/streams/:id/finish          post the chunks joined as one ordinary message (the writer)
//   POST /v1/streams/:id/stop            ask the writer to stop (a reader)
//   GET  /v1/streams/:id, GET /v1/streams   read open streams
// Live frames go to connections that ask for them: GET /v1/ws/v1?live=true (events.rest.ts documents
// the socket; ServerFrame lists the frames).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import {
  ChunkInput,
  ChunkResult,
  FinishInput,
  FinishResult,
  StreamIdParam,
  StreamInput,
  StreamList,
  StreamOutput,
  StreamsQuery,
  TypingInput,
  TypingResult,
} from './live.schemas.js';
import { openStream } from './open-stream.js';
import { idempotencyKeyOf } from '../messages/messages.rest.js';
import { IdempotencyHeaders } from '../messages/messages.schemas.js';
import { listStreams, readStream } from './read-streams.js';
import { stopStream } from './stop-stream.js';
import { appendChunk, finishStream } from './write-stream.js';
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

const STREAM_404 = '`stream_not_found`: no such stream, or not one you may read (the same answer).';

export function mountStreamRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'post',
    path: '/v1/streams',
    tag: TAG,
    summary: 'Open a streamed reply',
    status: 201,
    description:
      'Opens a reply that is written in chunks and posted when finished. The body is a MessageInput (parent, ' +
      'recipients, `"audience": "parent"`, channels, public…) whose `content`, if any, is the first chunk; it is ' +
      'judged as a post is, with the same errors, and nothing is written yet. Everyone who will see the finished ' +
      "message (you, every recipient, the channels' members) receives on connections opened with " +
      '`/v1/ws/v1?live=true` `stream.opened`, then `stream.appended` for each chunk in order, then `stream.ended`; ' +
      'nobody else. A connection that joins mid-stream first gets `stream.opened` with the text so far. Reads of ' +
      'threads and inboxes show nothing until the finish posts the message. A stream with no chunk for ' +
      'SKEIN_STREAM_IDLE_SECONDS (30) ends by itself and leaves no message (finish with `incomplete: true` to keep ' +
      'what you wrote). With an `Idempotency-Key` header, the same key from you while the stream is kept (24 ' +
      'hours at most) answers that stream as it is now and opens nothing. Counts one post against your post ' +
      'limit. Needs `messages.write`.',
    auth: 'required',
    accountLimit: (limits) => limits.postsByAccount,
    body: StreamInput,
    response: StreamOutput,
    errors: {
      403: '`insufficient_scope`; `not_channel_member`.',
      404: '`message_not_found` (a parent you cannot see), `user_not_found`, `channel_not_found`, `file_not_found`.',
      422: 'Invalid input.',
      429: '`rate_limited`: the post limit, or SKEIN_MAX_OPEN_STREAMS_PER_USER streams open already.',
    },
    headers: IdempotencyHeaders,
    handler: ({ caller, body, header }) => openStream(ctx, caller, body, idempotencyKeyOf(header)),
  });

  routes.add({
    method: 'post',
    path: '/v1/streams/:stream_id/chunks',
    tag: TAG,
    summary: 'Append a chunk',
    description:
      'Appends chunk `seq` (1, 2, 3…) of your stream; sending the last seq again with the same text answers the ' +
      'same (a safe retry). The whole text is at most 65,536 characters, as a message. Needs `messages.write`.',
    auth: 'required',
    accountLimit: (limits) => limits.streamAppendsByAccount,
    params: StreamIdParam,
    body: ChunkInput,
    response: ChunkResult,
    errors: {
      403: '`not_author`: a reader of the stream, not its writer.',
      404: STREAM_404,
      409:
        '`stream_seq_conflict` (not the next seq; the detail names it), `stream_stopped` (a reader stopped it: ' +
        'finish now), `stream_ended`.',
      422: 'A chunk of 0 or more than 16,384 characters, or a text past 65,536.',
    },
    handler: ({ caller, params, body }) => appendChunk(ctx, caller, params.stream_id, body),
  });

  routes.add({
    method: 'post',
    path: '/v1/streams/:stream_id/finish',
    tag: TAG,
    summary: 'Finish a streamed reply',
    description:
      "Posts the chunks 1..`last_seq` joined as one ordinary message of the stream's input (its events, webhooks, " +
      'unread counts and search, as any post; edits afterwards), and tells the readers `stream.ended` with its id. ' +
      'A retry answers the same message. A stream with no text ends `abandoned` and posts nothing. Needs ' +
      '`messages.write`.',
    auth: 'required',
    params: StreamIdParam,
    body: FinishInput,
    response: FinishResult,
    errors: {
      403: '`not_author`.',
      404: STREAM_404,
      409: '`stream_seq_conflict` (`last_seq` is not the last chunk written), `stream_ended`.',
    },
    handler: ({ caller, params, body }) => finishStream(ctx, caller, params.stream_id, body),
  });

  routes.add({
    method: 'post',
    path: '/v1/streams/:stream_id/stop',
    tag: TAG,
    summary: "Ask a stream's writer to stop",
    description:
      "Anyone who will see the finished message may ask its writer to stop (as a stop button under a bot's answer). " +
      "The readers and the writer get `stream.stop_requested` on live connections; the writer's next append " +
      'answers 409 `stream_stopped`, and the stream ends `stopped` when the writer finishes (or `abandoned`, with ' +
      'no message, 10 s later if it does not). Stopping again answers the same, naming the first stopper. Needs ' +
      '`messages.write` and `messages.read` (the answer holds the text so far).',
    auth: 'required',
    params: StreamIdParam,
    response: StreamOutput,
    errors: {
      404: STREAM_404,
      409: '`stream_ended`: it has ended (the detail says how, with its message id).',
    },
    handler: ({ caller, params }) => stopStream(ctx, caller, params.stream_id),
  });

  routes.add({
    method: 'get',
    path: '/v1/streams/:stream_id',
    tag: TAG,
    summary: 'Read a stream',
    description:
      'A stream you may read (its writer, its audience, anyone when it will be public), with its text so far; ' +
      'answered 10 minutes past its end, with the message id. Needs `messages.read`.',
    auth: 'required',
    params: StreamIdParam,
    response: StreamOutput,
    errors: { 404: STREAM_404 },
    handler: ({ caller, params }) => readStream(ctx, caller, params.stream_id),
  });

  routes.add({
    method: 'get',
    path: '/v1/streams',
    tag: TAG,
    summary: 'List open streams',
    description:
      'The open streams you may read, newest first (at most 100), under a parent (`parent_id`) or in a channel ' +
      '(`channel_id`): what a client shows as "being written" when it opens a thread. Needs `messages.read`.',
    auth: 'required',
    query: StreamsQuery,
    response: StreamList,
    errors: {},
    handler: ({ caller, query }) => listStreams(ctx, caller, query),
  });
}
