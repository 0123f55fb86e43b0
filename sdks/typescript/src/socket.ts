// The notification socket, /v1/ws/v1 (contract "Events"): frames `ready`, then `notification`s, each
// with an opaque cursor. The client keeps the cursor of the last frame it handed to you and, after
// any drop, reconnects with `?since=<cursor>`, so the service replays what was missed, in order,
// exactly once. It keeps trying, with capped exponential back-off and jitter, until close(); while it
// runs it keeps the process alive (a bot must not exit at the first disconnect). Refusals (close
// codes 4400/4401/4403) are final: reconnecting would not help, so they end it.
import WebSocket from 'ws';
import { Backoff, pauseUntilReady } from './backoff.js';
import type { components } from './generated/openapi.js';
import type { Credentials } from './client.js';

export type SocketEvent = components['schemas']['Notification']['event'];
export interface NotificationFrame {
  type: 'notification';
  cursor: string;
  event: SocketEvent;
}
export interface ReadyFrame {
  type: 'ready';
  uid: string;
  cursor: string;
}
type ServerFrame =
  | ReadyFrame
  | NotificationFrame
  | LiveFrame
  | { type: 'pong' }
  | { type: 'error'; code: string; detail: string };

/** A live frame of `?live=true` (see SocketOptions.onLive); its fields depend on `type`. */
export interface LiveFrame {
  type:
    | 'typing.started'
    | 'typing.stopped'
    | 'stream.opened'
    | 'stream.appended'
    | 'stream.stop_requested'
    | 'stream.ended';
  [field: string]: unknown;
}

function isLiveFrame(frame: { type: string }): frame is LiveFrame {
  return frame.type.startsWith('typing.') || frame.type.startsWith('stream.');
}

/**
 * The text of the streams a reader sees, kept from live frames: `apply` each frame; `text(id)` is
 * what has been written; a stream's entry goes at `stream.ended` (its `message_id` then names the
 * posted reply, which reads and events show from then on).
 */
export class StreamView {
  private readonly streams = new Map<string, { seq: number; text: string }>();

  /** Applies a live frame; answers the stream id it changed, if any. */
  apply(frame: LiveFrame): string | undefined {
    const id = typeof frame.stream_id === 'string' ? frame.stream_id : undefined;
    if (id === undefined) return undefined;
    if (frame.type === 'stream.opened') {
      this.streams.set(id, { seq: frame.seq as number, text: frame.text as string });
    } else if (frame.type === 'stream.appended') {
      const stream = this.streams.get(id);
      // `after` is the seq the text follows: a frame not after what is held is old news.
      if (stream && frame.after === stream.seq) {
        stream.seq = frame.seq as number;
        stream.text += frame.text as string;
      }
    } else if (frame.type === 'stream.ended') {
      this.streams.delete(id);
    }
    return id;
  }

  text(streamId: string): string | undefined {
    return this.streams.get(streamId)?.text;
  }
}

export interface SocketOptions extends Credentials {
  /** The service's base URL (http or https); the socket URL is derived from it. */
  baseUrl: string;
  /** Resume after this cursor on the first connection (e.g. one stored by a previous run). */
  since?: string | undefined;
  /**
   * Ask for `?include_context=true`: each new message of `sent`, `ping`, `added` and `channels`
   * events then carries `message_context`, its conversation context as you may read it. Default false.
   */
  includeContext?: boolean | undefined;
  /**
   * Live frames (`?live=true`): someone typing (`typing.started` / `typing.stopped`) and replies that
   * stream in (`stream.opened` with the text so far, `stream.appended`, `stream.stop_requested`,
   * `stream.ended`), for what you may see. Never stored: after a reconnect you get the live state
   * again (active typing, open streams' snapshots), not what passed meanwhile. `StreamView` keeps a
   * stream's text from them.
   */
  onLive?: ((frame: LiveFrame) => void) | undefined;
  onNotification: (frame: NotificationFrame) => void | Promise<void>;
  /** Each ready frame: the first connection's and every reconnection's. */
  onReady?: ((frame: ReadyFrame) => void) | undefined;
  /**
   * A failed reconnect, an error frame, a throwing onNotification, or the refusal that ended the
   * socket (a SocketRefusedError: nothing follows it).
   */
  onError?: ((error: Error) => void) | undefined;
  /** An unexpected close of a connection that was ready; reconnecting follows (unless it was a refusal). */
  onDisconnect?: ((code: number, reason: string) => void) | undefined;
  /** The first wait before reconnecting after an unexpected close. Default 500 ms. */
  reconnectDelayMs?: number | undefined;
  /** The longest wait between reconnects: the wait doubles up to it, with jitter. Default 30 s. */
  maxReconnectDelayMs?: number | undefined;
  /**
   * Pings the service this often and drops a connection that stayed silent for a whole period
   * (a network that vanished without closing), then reconnects. Default 30 s; 0 turns it off.
   */
  heartbeatMs?: number | undefined;
}

/** Close codes after which reconnecting cannot help: a bad `since`, bad credentials, a missing scope. */
export const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([4400, 4401, 4403]);

/** The service refused the socket for good (close code 4400, 4401 or 4403). */
export class SocketRefusedError extends Error {
  constructor(
    /** The WebSocket close code. */
    readonly closeCode: number,
    /** The contract's error code (the close reason), e.g. `invalid_session`. */
    readonly code: string,
    readonly detail: string | undefined,
  ) {
    super(`socket refused: ${closeCode} ${code}${detail ? `: ${detail}` : ''}`);
    this.name = 'SocketRefusedError';
  }
}

export class SkeinSocket {
  private ws: WebSocket | undefined;
  /** The last notification handed to onNotification (what a later run should resume from). */
  private cursor: string | undefined;
  /** The last notification received, maybe still queued for onNotification (where a reconnect resumes). */
  private received: string | undefined;
  private closed = true;
  /** Moves on each connect(), reconnect() and close(), so a reconnect loop of an older one gives up. */
  private generation = 0;
  private readonly backoff: Backoff;
  /** Aborts a wait between reconnects when close() is called. */
  private waiting: AbortController | undefined;
  private delivering: Promise<void> = Promise.resolve();
  /** The last attempt found no service (refused, reset, 502–504), or a ready connection dropped. */
  private away = false;

  constructor(private readonly options: SocketOptions) {
    this.cursor = options.since;
    this.received = options.since;
    this.backoff = new Backoff({
      initialDelayMs: options.reconnectDelayMs,
      maxDelayMs: options.maxReconnectDelayMs,
    });
  }

  /** The cursor to resume from: the last notification's, or the first ready frame's. */
  get lastCursor(): string | undefined {
    return this.cursor;
  }

  /**
   * Opens the socket; resolves with the ready frame. By default one attempt: a failure rejects and
   * nothing follows. With `retry`, failures that time may cure (the service down or restarting) are
   * reported to onError and tried again with back-off; it rejects only on a refusal or close().
   * Once connected, drops are reconnected by themselves until close().
   */
  async connect(options: { retry?: boolean } = {}): Promise<ReadyFrame> {
    this.closed = false;
    this.generation += 1;
    for (;;) {
      try {
        return await this.open();
      } catch (error) {
        if (!options.retry || this.closed || error instanceof SocketRefusedError) {
          this.closed = true;
          throw error;
        }
        this.options.onError?.(error as Error);
        await this.wait();
        if (this.closed) throw new Error('socket closed before it connected', { cause: error });
      }
    }
  }

  /** Sends `{"type": "ping"}`; the service answers with a pong frame. */
  ping(): void {
    this.ws?.send(JSON.stringify({ type: 'ping' }));
  }

  /**
   * Drops the current connection and connects again from the last cursor (what an unexpected
   * close does by itself); handy after a network change.
   */
  async reconnect(): Promise<ReadyFrame> {
    this.generation += 1;
    this.waiting?.abort();
    await this.delivering;
    const old = this.ws;
    this.ws = undefined;
    old?.terminate();
    return this.connect();
  }

  /** Closes for good; no reconnect follows, and the process is free to exit. */
  close(): Promise<void> {
    this.closed = true;
    this.generation += 1;
    this.waiting?.abort();
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000);
    });
  }

  /** One connection attempt: resolves on its ready frame, rejects when it ends before one. */
  private open(): Promise<ReadyFrame> {
    return new Promise<ReadyFrame>((resolve, reject) => {
      const url = new URL('/v1/ws/v1', this.options.baseUrl);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      if (this.received !== undefined) url.searchParams.set('since', this.received);
      if (this.options.includeContext) url.searchParams.set('include_context', 'true');
      if (this.options.onLive) url.searchParams.set('live', 'true');
      const headers: Record<string, string> = {};
      if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
      else if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
      const ws = new WebSocket(url, { headers });
      this.ws = ws;
      let ready = false;
      let refusal: { code: string; detail: string } | undefined;
      let failure: Error | undefined;
      const stopHeartbeat = this.heartbeat(ws);
      ws.on('message', (data: WebSocket.RawData) => {
        let frame: ServerFrame;
        try {
          frame = JSON.parse(frameText(data)) as ServerFrame;
        } catch {
          this.options.onError?.(new Error('the service sent a frame that is not JSON'));
          return;
        }
        if (frame.type === 'ready') {
          ready = true;
          // Only the first connection starts at "now"; a resumed one keeps its cursor until a
          // replayed notification moves it, so a drop during the replay loses nothing.
          this.cursor ??= frame.cursor;
          this.received ??= frame.cursor;
          this.backoff.reset();
          this.away = false;
          this.options.onReady?.(frame);
          resolve(frame);
        } else if (frame.type === 'notification') {
          // Queued frames are still handed out after a drop, so a reconnect resumes after them.
          this.received = frame.cursor;
          this.delivering = this.delivering.then(async () => {
            try {
              await this.options.onNotification(frame);
            } catch (error) {
              this.options.onError?.(error as Error);
            } finally {
              this.cursor = frame.cursor;
            }
          });
        } else if (isLiveFrame(frame)) {
          this.options.onLive?.(frame);
        } else if (frame.type === 'error') {
          // A refusal sends its error frame just before the close that says whether it is final.
          if (!ready) refusal = { code: frame.code, detail: frame.detail };
          else this.options.onError?.(new Error(`${frame.code}: ${frame.detail}`));
        }
      });
      ws.on('error', (error) => {
        failure = error;
        // No WebSocket answer at all, or a proxy's 502–504: the service is away (restarting).
        if (!/Unexpected server response: (?!50[234])/.test(error.message)) this.away = true;
      });
      ws.on('close', (code, reasonBuffer) => {
        stopHeartbeat();
        const reason = reasonBuffer.toString();
        const refused = FINAL_CLOSE_CODES.has(code)
          ? new SocketRefusedError(code, refusal?.code ?? reason, refusal?.detail)
          : undefined;
        if (!ready) {
          reject(
            refused ??
              failure ??
              new Error(
                `socket closed before ready: ${code} ${refusal ? `${refusal.code}: ${refusal.detail}` : reason}`,
              ),
          );
          return;
        }
        if (this.ws !== ws || this.closed) return;
        if (refused) {
          this.closed = true;
          this.options.onError?.(refused);
          return;
        }
        // 1001 (going away), 1006 (no close frame), 1012 (restart): the service itself went away.
        this.away = code === 1001 || code === 1006 || code === 1012;
        this.options.onDisconnect?.(code, reason);
        void this.reconnectAfterDrop(this.generation);
      });
    });
  }

  /** After a connection that was ready dropped: tries again, with back-off, until it is ready again. */
  private async reconnectAfterDrop(generation: number): Promise<void> {
    const current = () => !this.closed && this.generation === generation;
    while (current()) {
      await this.wait();
      if (!current()) return;
      try {
        await this.open();
        return;
      } catch (error) {
        if (!current()) return;
        if (error instanceof SocketRefusedError) this.closed = true;
        this.options.onError?.(error as Error);
      }
    }
  }

  /**
   * The back-off wait before the next attempt. While the service is away it also polls /readyz, and
   * comes back within a second of the service's readiness however long the back-off had grown.
   */
  private async wait(): Promise<void> {
    this.waiting = new AbortController();
    await pauseUntilReady(this.backoff.next(), {
      baseUrl: this.options.baseUrl,
      down: this.away,
      signal: this.waiting.signal,
    });
    this.waiting = undefined;
  }

  /** Pings each period; a connection that answered nothing for a whole period is cut (and reconnected). */
  private heartbeat(ws: WebSocket): () => void {
    const period = this.options.heartbeatMs ?? 30_000;
    if (period <= 0) return () => undefined;
    let alive = true;
    const markAlive = () => (alive = true);
    ws.on('pong', markAlive);
    ws.on('ping', markAlive);
    ws.on('message', markAlive);
    const timer = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (!alive) {
        ws.terminate();
        return;
      }
      alive = false;
      ws.ping();
    }, period);
    // The connection itself keeps the process alive; the timer need not.
    timer.unref();
    return () => clearInterval(timer);
  }
}

function frameText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
