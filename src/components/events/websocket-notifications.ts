// GET /v1/ws/v1 — the notification socket (contract "Events"), once the upgrade is accepted.
//   server → {"type":"ready","uid","cursor"} first; cursor is the position now.
//   server → {"type":"notification","cursor","event":<event>} for each event, in the log's order,
//            each once: with ?since=<cursor> first every one after it from the log, then live.
//            With ?include_context=true each new message of an event carries `message_context`,
//            its conversation context as the caller may read it (message-contexts.ts, decision 028).
//   With ?live=true also live frames (src/components/live/, decision 031): typing.* and stream.*,
//            never in the log; first the active typing signals and open streams' snapshots.
//   client {"type":"typing", message_id | channel_id | recipients, op?, status?, id?} → {"type":
//            "typing.ok", id, op, expires_at, renew_in_ms} or an error frame with the same id: POST
//            /v1/typing without HTTP (live/set-typing.ts), for clients that type often.
//   client {"type":"ping"} → {"type":"pong"}; any other frame → {"type":"error","code","detail"}
//            (code invalid_frame); the socket stays open.
//   ending → an error frame {"type":"error","code","detail"}, then a close whose reason is that
//            code: 4401 not_authenticated / invalid_session / invalid_api_key, 4403
//            insufficient_scope (realtime.connect and messages.read are both needed, at connect and
//            for as long as the socket is open) / api_access_required / csrf_rejected, 4400 validation_error (bad since
//            or flag), 4429
//            rate_limited (too many sockets), 4008 slow_consumer, 1013 unavailable (database
//            down), 1011 internal_error; on shutdown just a close 1001 server_shutdown.
// A credential that ends or loses a scope while the socket is open (logout, revocation, password
// change, deactivation, an administrator's change) closes it at once, and no frame leaves after the
// change answered (live-credential.ts).
// A client resumes after any close by reconnecting with since = the last cursor it received (or
// the ready frame's cursor when it received none). No frame is larger than SKEIN_EVENT_MAX_BYTES
// (event-budget.ts), at most half of what a socket may buffer, so a resume always makes progress.
import type { RawData, WebSocket } from 'ws';
import type { AppContext } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { decodeCursor } from '../event-log/event-log.js';
import { joinLive } from '../live/join-live.js';
import { typingOverSocket } from '../live/set-typing.js';
import { IncludeContextFlag, LiveFlag } from './events.schemas.js';
import { withinBudget } from './event-budget.js';
import { largeFrameTurn } from './frame-turns.js';
import type { LiveCredential } from './live-credential.js';
import { refusalFor, slowConsumer, type SocketRefusal } from './realtime-auth.js';
import type { ClientEvent } from './notification-event.js';
import { withMessageContexts } from './message-contexts.js';
import { followNotifications, type NotificationFeed } from './realtime-feed.js';
import { startHeartbeat } from './realtime-heartbeat.js';
import { CLOSE_CODES, type RealtimeSettings, type ServerFrame } from './realtime-settings.js';

/** `?since=`: absent → null; otherwise a cursor this service handed out (a 4400 refusal otherwise). */
export function parseSince(url: URL): number | null {
  const value = url.searchParams.get('since');
  return value === null ? null : decodeCursor(value);
}

/** `?include_context=`, `?live=`: absent → false; true, false, 1 or 0; anything else a 4400 refusal. */
export function parseFlag(url: URL, name: 'include_context' | 'live'): boolean {
  const value = url.searchParams.get(name);
  const parsed = (name === 'live' ? LiveFlag : IncludeContextFlag).safeParse(value ?? undefined);
  if (!parsed.success) {
    throw validationError([
      { loc: ['query', name], msg: 'must be true, false, 1 or 0', type: 'value_error' },
    ]);
  }
  return parsed.data;
}

/** What a socket asked for besides its events. */
export interface NotificationSocketOptions {
  /** Each new message of an event carries its conversation context (message-contexts.ts). */
  includeContext: boolean;
  /** Live frames too: typing and streamed replies (src/components/live/, decision 031). */
  live: boolean;
}

/** Sends the error frame, then closes with the refusal's code; used for refusals after the upgrade too. */
export function endNotificationSocket(ws: WebSocket, refusal: SocketRefusal): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.send(
    JSON.stringify({ type: 'error', code: refusal.code, detail: refusal.message } satisfies ServerFrame),
  );
  ws.close(refusal.closeCode, refusal.code);
}

export function serveNotificationSocket(
  ws: WebSocket,
  ctx: AppContext,
  live: LiveCredential,
  since: number | null,
  address: string,
  settings: RealtimeSettings,
  { includeContext, live: liveFrames }: NotificationSocketOptions = { includeContext: false, live: false },
): void {
  let feed: NotificationFeed | undefined;
  let ended = false;
  let lastWrite: Promise<void> = Promise.resolve();
  const softLimit = settings.maxBufferedBytes / 4;

  const { caller } = live;
  const end = (refusal: SocketRefusal) => {
    if (ended) return;
    ended = true;
    leaveLive?.();
    feed?.close();
    live.close();
    endNotificationSocket(ws, refusal);
  };
  live.onRefusal(end);

  const send = (frame: ServerFrame): void => sendText(JSON.stringify(frame));
  // Live frames in the order handed out; after a change to some credential, none leaves until this
  // one is judged again (as for events).
  let leaveLive: (() => void) | undefined;
  let liveChain: Promise<void> = Promise.resolve();
  let liveWaiting = 0;
  const sendLive = (frame: object): void => {
    if (ended) return;
    if (liveWaiting === 0 && live.current) return sendText(JSON.stringify(frame));
    liveWaiting++;
    liveChain = liveChain.then(async () => {
      try {
        if (!ended && (live.current || (await live.mayDeliver()))) sendText(JSON.stringify(frame));
      } finally {
        liveWaiting--;
      }
    });
  };
  const sendText = (text: string): void => {
    if (ended || ws.readyState !== ws.OPEN) return;
    lastWrite = new Promise((resolve) => ws.send(text, () => resolve()));
    // The bound that matters for memory: what the socket holds beyond what the kernel took.
    if (ws.bufferedAmount > settings.maxBufferedBytes) end(slowConsumer());
  };

  const pump = async (opened: NotificationFeed): Promise<void> => {
    for (;;) {
      const delivered = await opened.next();
      if (delivered === null || ended) return;
      // Read before the credential check below, so that check is the last step before the send.
      const event = includeContext
        ? await withMessageContexts(ctx, live.caller, delivered.event, delivered.id)
        : delivered.event;
      // A frame with contexts is large: one such frame per turn of the event loop (frame-turns.ts).
      if (includeContext) await largeFrameTurn();
      if (ended) return;
      // After a change to some credential, nothing leaves until this one is judged again.
      if (!live.current && !(await live.mayDeliver())) return;
      // Every message of it became invisible while its context was read: passed over, as any event
      // that shows nothing.
      if (event === null) continue;
      sendText(notificationText(delivered.cursor, withinBudget(event, settings.eventMaxBytes)));
      // Backpressure: take no more from the feed until the socket has flushed most of what it holds.
      // Meanwhile live notifications wait in the feed, which calls a client that falls too far
      // behind a slow consumer; a client that stops reading altogether misses its pongs.
      if (ws.bufferedAmount > softLimit) await lastWrite;
    }
  };

  // Frames that arrive before the ready frame is sent are answered after it.
  let readyToAnswer: () => void = () => undefined;
  const answering = new Promise<void>((resolve) => (readyToAnswer = resolve));
  ws.on('message', (data, isBinary) => {
    void answering.then(() => answer(data, isBinary));
  });
  const answer = (data: RawData, isBinary: boolean): void => {
    const frame = isBinary ? undefined : parseFrame(data);
    if (frame?.type === 'ping') send({ type: 'pong' });
    else if (frame?.type === 'typing') {
      // The same use case as POST /v1/typing, without HTTP: the socket's caller, its rate limit.
      void typingOverSocket(ctx, live.caller, frame).then((reply) => sendText(JSON.stringify(reply)));
    } else
      send({
        type: 'error',
        code: 'invalid_frame',
        detail: 'Clients send {"type":"ping"} or {"type":"typing", …} as JSON text.',
      });
  };

  ws.once('close', () => {
    ended = true;
    leaveLive?.();
    feed?.close();
    live.close();
  });
  startHeartbeat(ws, {
    intervalMs: settings.heartbeatSeconds * 1000,
    recheck: () => live.recheck(),
    end,
    log: ctx.log,
  });

  followNotifications(ctx, caller, { since, address, onOverflow: () => end(slowConsumer()) })
    .then((opened) => {
      feed = opened;
      if (ended) {
        opened.close();
        return;
      }
      send({ type: 'ready', uid: caller.uid, cursor: opened.startCursor });
      readyToAnswer();
      if (liveFrames)
        leaveLive = joinLive(ctx, caller.uid, (channelId) => opened.follows(channelId), sendLive);
      // A channel event's frames are written feed by feed as soon as it is judged (realtime-feed.ts).
      // A socket that asked for contexts takes every event through the pump, which reads them.
      if (!includeContext)
        opened.pushTo((delivered) => {
          // Not current: next() hands it out, and the pump waits for the judgement.
          if (ended || !live.current || ws.bufferedAmount > softLimit) return false;
          sendText(notificationText(delivered.cursor, withinBudget(delivered.event, settings.eventMaxBytes)));
          return true;
        });
      return pump(opened);
    })
    .catch((error: unknown) => {
      const refusal = refusalFor(error);
      if (refusal.closeCode === CLOSE_CODES.internalError)
        ctx.log.error({ err: error, uid: caller.uid }, 'notification socket failed');
      end(refusal);
    });
}

/** Event contents that many recipients' events share (event-payloads.ts), serialised once. */
const contentTexts = new WeakMap<object, string>();

/** The notification frame's text: JSON.stringify of {type, cursor, event}, reusing a shared content's text. */
function notificationText(cursor: string, event: ClientEvent): string {
  if (!Object.isFrozen(event.content))
    return JSON.stringify({ type: 'notification', cursor, event } satisfies ServerFrame);
  let content = contentTexts.get(event.content);
  if (content === undefined) {
    content = JSON.stringify(event.content);
    contentTexts.set(event.content, content);
  }
  const { type, recipient_uid } = event;
  return (
    `{"type":"notification","cursor":${JSON.stringify(cursor)},"event":{"type":${JSON.stringify(type)},` +
    `"recipient_uid":${JSON.stringify(recipient_uid)},"content":${content}}}`
  );
}

function parseFrame(data: RawData): { type?: unknown } | undefined {
  try {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(new Uint8Array(data));
    const text = bytes.toString('utf8');
    const value = JSON.parse(text) as { type?: unknown } | null;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
