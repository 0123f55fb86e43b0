// A WebSocket client for tests of /v1/ws/v1: collects the server's JSON frames in order, lets a test
// wait for the next one or for the close, and can stop reading to play a slow consumer. Every
// socket opened here is cut by closeAllSockets() (call it in afterAll before closing the server:
// an open upgraded socket keeps http.Server.close() waiting).
import { createConnection, type NetConnectOpts, type Socket } from 'node:net';
import { WebSocket, type ClientOptions } from 'ws';
import { realtimeSettings, type RealtimeSettings } from '../../src/components/events/realtime-settings.js';
import type { TestServer } from './test-server.js';

export type Frame = { type: string; [field: string]: unknown };

export interface Closed {
  code: number;
  reason: string;
}

export interface TestSocket {
  ws: WebSocket;
  /** The next frame not yet taken; fails after `timeoutMs` (a missing frame, not a timing assert). */
  next(timeoutMs?: number): Promise<Frame>;
  /** Frames received and not yet taken. */
  readonly unread: Frame[];
  send(frame: unknown): void;
  /** Resolves with the close code and reason once the socket has closed. */
  closed: Promise<Closed>;
  /** Stops reading from the TCP socket (the server's frames pile up in the kernel and then in the server). */
  stopReading(): void;
  resumeReading(): void;
}

export interface OpenOptions {
  token?: string;
  /** Query parameters, e.g. { access_token, since }. */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  path?: string;
  /** false: the client does not answer the server's pings. */
  autoPong?: boolean;
}

const open = new Set<WebSocket>();

export function socketUrl(
  api: Pick<TestServer, 'url'>,
  path: string,
  query: Record<string, string> = {},
): string {
  const url = new URL(path, api.url.replace(/^http/, 'ws'));
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

/** Opens /v1/ws/v1 (or `path`) and resolves once the upgrade is done (before any frame). */
export async function openSocket(
  api: Pick<TestServer, 'url'>,
  options: OpenOptions = {},
): Promise<TestSocket> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let tcp: Socket | undefined;
  const clientOptions: ClientOptions = {
    headers,
    autoPong: options.autoPong ?? true,
    // ws connects through this, so the test holds the TCP socket and can stop reading from it.
    createConnection: ((opts: NetConnectOpts, listener?: () => void) => {
      tcp = createConnection(opts, listener);
      return tcp;
    }) as typeof createConnection,
  };
  const ws = new WebSocket(socketUrl(api, options.path ?? '/v1/ws/v1', options.query), clientOptions);
  open.add(ws);
  const unread: Frame[] = [];
  const waiters: ((frame: Frame) => void)[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse((data as Buffer).toString('utf8')) as Frame;
    const waiter = waiters.shift();
    if (waiter) waiter(frame);
    else unread.push(frame);
  });
  const closed = new Promise<Closed>((resolve) => {
    ws.once('close', (code, reason) => {
      open.delete(ws);
      resolve({ code, reason: reason.toString() });
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return {
    ws,
    unread,
    closed,
    next: (timeoutMs = 15_000) => {
      const frame = unread.shift();
      if (frame) return Promise.resolve(frame);
      return new Promise<Frame>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no frame within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (f: Frame) => {
          clearTimeout(timer);
          resolve(f);
        };
        waiters.push(waiter);
        void closed.then(({ code, reason }) => {
          if (!waiters.includes(waiter)) return;
          waiters.splice(waiters.indexOf(waiter), 1);
          clearTimeout(timer);
          reject(new Error(`socket closed (${code} ${reason}) while a frame was awaited`));
        });
      });
    },
    send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    stopReading: () => tcp?.pause(),
    resumeReading: () => tcp?.resume(),
  };
}

/** Waits for the close, failing after `timeoutMs` rather than hanging the test. */
export function closeOf(socket: TestSocket, timeoutMs = 15_000): Promise<Closed> {
  return Promise.race([
    socket.closed,
    new Promise<Closed>((_, reject) =>
      setTimeout(() => reject(new Error(`socket not closed within ${timeoutMs} ms`)), timeoutMs).unref(),
    ),
  ]);
}

export function closeAllSockets(): void {
  for (const ws of open) ws.terminate();
  open.clear();
}

/**
 * Sets the live-delivery tunables of a running test server (read per connection). Config has no
 * `realtime` entry of its own yet; once it parses SKEIN_WS_* this still overrides it.
 */
export function tuneRealtime(api: TestServer, settings: Partial<RealtimeSettings>): void {
  api.ctx.config.realtime = { ...realtimeSettings(api.ctx.config), ...settings };
}
