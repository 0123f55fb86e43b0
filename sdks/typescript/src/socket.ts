// The notification socket, /v1/ws/v1 (contract "Events"): frames `ready`, then `notification`s, each
// with an opaque cursor. The client keeps the cursor of the last frame it handed to you and, after
// any drop, reconnects with `?since=<cursor>`, so the service replays what was missed, in order,
// exactly once. Refusals (close codes 4400/4401/4403) are final: reconnecting would not help.
import WebSocket from 'ws';
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
  ReadyFrame | NotificationFrame | { type: 'pong' } | { type: 'error'; code: string; detail: string };

export interface SocketOptions extends Credentials {
  /** The service's base URL (http or https); the socket URL is derived from it. */
  baseUrl: string;
  /** Resume after this cursor on the first connection (e.g. one stored by a previous run). */
  since?: string;
  onNotification: (frame: NotificationFrame) => void | Promise<void>;
  onReady?: (frame: ReadyFrame) => void;
  /** A refusal or error frame from the service, or a failed reconnect. */
  onError?: (error: Error) => void;
  /** Wait before reconnecting after an unexpected close; doubles up to 30 s. Default 500 ms. */
  reconnectDelayMs?: number;
}

const FINAL_CLOSE_CODES = new Set([4400, 4401, 4403]);

export class SkeinSocket {
  private ws: WebSocket | undefined;
  private cursor: string | undefined;
  private closed = false;
  private delay: number;
  private delivering: Promise<void> = Promise.resolve();

  constructor(private readonly options: SocketOptions) {
    this.cursor = options.since;
    this.delay = options.reconnectDelayMs ?? 500;
  }

  /** The cursor to resume from: the last notification's, or the first ready frame's. */
  get lastCursor(): string | undefined {
    return this.cursor;
  }

  /** Opens the socket; resolves with the ready frame. */
  connect(): Promise<ReadyFrame> {
    this.closed = false;
    return new Promise<ReadyFrame>((resolve, reject) => {
      const url = new URL('/v1/ws/v1', this.options.baseUrl);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      if (this.cursor !== undefined) url.searchParams.set('since', this.cursor);
      const headers: Record<string, string> = {};
      if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
      else if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
      const ws = new WebSocket(url, { headers });
      this.ws = ws;
      let ready = false;
      ws.on('message', (data: WebSocket.RawData) => {
        const frame = JSON.parse(frameText(data)) as ServerFrame;
        if (frame.type === 'ready') {
          ready = true;
          // Only the first connection starts at "now"; a resumed one keeps its cursor until a
          // replayed notification moves it, so a drop during the replay loses nothing.
          this.cursor ??= frame.cursor;
          this.delay = this.options.reconnectDelayMs ?? 500;
          this.options.onReady?.(frame);
          resolve(frame);
        } else if (frame.type === 'notification') {
          this.delivering = this.delivering.then(async () => {
            try {
              await this.options.onNotification(frame);
            } catch (error) {
              this.options.onError?.(error as Error);
            } finally {
              this.cursor = frame.cursor;
            }
          });
        } else if (frame.type === 'error') {
          const error = new Error(`${frame.code}: ${frame.detail}`);
          if (!ready) reject(error);
          else this.options.onError?.(error);
        }
      });
      ws.on('error', (error) => {
        if (!ready) reject(error);
      });
      ws.on('close', (code, reason) => {
        if (this.ws !== ws) return;
        if (!ready) reject(new Error(`socket closed before ready: ${code} ${reason.toString()}`));
        if (this.closed) return;
        if (FINAL_CLOSE_CODES.has(code)) {
          this.options.onError?.(new Error(`socket refused: ${code} ${reason.toString()}`));
          return;
        }
        this.scheduleReconnect();
      });
    });
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
    await this.delivering;
    const old = this.ws;
    this.ws = undefined;
    old?.terminate();
    return this.connect();
  }

  /** Closes for good; no reconnect follows. */
  close(): Promise<void> {
    this.closed = true;
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000);
    });
  }

  private scheduleReconnect(): void {
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, 30_000);
    setTimeout(() => {
      if (this.closed) return;
      this.connect().catch((error: Error) => this.options.onError?.(error));
    }, wait).unref();
  }
}

function frameText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
