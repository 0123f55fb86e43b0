// WebSocket workloads: fan-out of one channel message to every connected member, and the memory of
// many idle sockets. The same measurements are made on the bare server (bare-server.ts), whose
// /broadcast sends a frame of the same size to every socket with no database and no outbox.
// The fan-out's sockets live in a listener process (listener-process.ts, driven through
// fan-out-listeners.ts); the idle sockets in the bench process itself.
import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import { mapPool } from './api.js';
import type { FanOutListeners } from './fan-out-listeners.js';
import { cpuMs } from './processes.js';
import { percentile } from './stats.js';

/** Milliseconds on CLOCK_MONOTONIC: comparable between the bench and its listener process. */
export const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

export interface Listener {
  ws: WebSocket;
  /** Resolves when the socket is usable (Skein: the ready frame; bare: the open event). */
  ready: Promise<void>;
}

/** A live frame of a streamed reply (decision 031), as far as the bench reads it. */
export interface StreamFrame {
  type: string;
  stream_id?: string;
  /** stream.appended: the chunks after `after` up to `seq`, joined. */
  after?: number;
  seq?: number;
}

export interface FrameCounter {
  /** Called for every notification frame with its arrival time and raw size. */
  onFrame: (at: number, bytes: number, frame: { type?: string; event?: unknown; seq?: number }) => void;
  /** Called for every `stream.*` frame (sockets opened with ?live=true), with its arrival time. */
  onStream?: (at: number, frame: StreamFrame) => void;
  /** Called for every answer to a client frame (`typing.ok`, `error`), with its arrival time. */
  onReply?: (
    at: number,
    frame: { type: string; id?: string | null; code?: string; detail?: unknown },
  ) => void;
}

/** Opens one socket; Skein's /v1/ws/v1 takes the token as ?access_token= and answers a ready frame. */
export function openListener(
  url: string,
  counter: FrameCounter | null,
  waitForReadyFrame: boolean,
): Listener {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`socket not ready in 60 s: ${url.replace(/access_token=[^&]+/, 'access_token=…')}`)),
      60_000,
    );
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    ws.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    ws.once('close', (code, reason) => {
      clearTimeout(timer);
      reject(new Error(`socket closed before ready: ${code} ${reason.toString()}`));
    });
    if (!waitForReadyFrame) ws.once('open', done);
    ws.on('message', (data: Buffer) => {
      const at = monotonicMs();
      const text = data.toString();
      const frame = JSON.parse(text) as { type?: string; event?: unknown; seq?: number };
      if (frame.type === 'ready') done();
      else if (frame.type === 'notification') counter?.onFrame(at, Buffer.byteLength(text), frame);
      else if (frame.type?.startsWith('stream.')) counter?.onStream?.(at, frame as StreamFrame);
      else if (frame.type === 'typing.ok' || frame.type === 'error')
        counter?.onReply?.(at, frame as { type: string; id?: string | null });
    });
  });
  // Errors after readiness (e.g. the server closing at the end) are not the benchmark's business.
  ready.catch(() => undefined);
  ws.on('error', () => undefined);
  return { ws, ready };
}

export async function openMany(
  urls: string[],
  counter: FrameCounter | null,
  waitForReadyFrame: boolean,
  concurrency = 64,
): Promise<WebSocket[]> {
  return mapPool(urls, concurrency, async (url) => {
    const listener = openListener(url, counter, waitForReadyFrame);
    await listener.ready;
    return listener.ws;
  });
}

/** Cuts the connections without a closing handshake (fast, for thousands of idle sockets). */
export async function terminateAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.terminate();
        }),
    ),
  );
}

export async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          const timer = setTimeout(() => {
            ws.terminate();
            resolve();
          }, 5_000);
          ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          ws.close();
        }),
    ),
  );
}

export interface SlowRound {
  ms: number;
  /**
   * CPU ms each watched process used during the round (10 ms ticks), with the bench process ("load
   * generator") and the listener process ("listeners"), which reads the frames.
   */
  cpu: Record<string, number>;
}

export interface FanOutResult {
  p50: number;
  p99: number;
  /** Each complete round's time (ms), to merge a measurement taken in parts. */
  times: number[];
  rounds: number;
  /** Rounds in which some socket did not get its frame within the time-out. */
  incomplete: number;
  frameBytes: number;
  /** Last frame minus the moment the trigger answered (negative: every frame came before the answer). */
  afterAnswer: { p50: number; p99: number };
  /**
   * What else held up the slowest rounds: the CPU time the processes used in them, and over the
   * whole measurement the packets the kernel dropped from its receive backlog (loopback included)
   * and the TCP segments it sent again (null where /proc does not say).
   */
  slowest: SlowRound[];
  kernel: { backlogDrops: number; retransmits: number } | null;
}

/** Packets dropped from the per-CPU receive backlogs and TCP retransmissions so far (Linux). */
function kernelCounters(): { backlogDrops: number; retransmits: number } | null {
  try {
    const backlogDrops = readFileSync('/proc/net/softnet_stat', 'utf8')
      .trim()
      .split('\n')
      .reduce((sum, line) => sum + parseInt(line.split(/\s+/)[1]!, 16), 0);
    const tcp = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('Tcp:'));
    const names = tcp[0]!.split(/\s+/);
    const values = tcp[1]!.split(/\s+/);
    return { backlogDrops, retransmits: Number(values[names.indexOf('RetransSegs')]) };
  } catch {
    return null;
  }
}

/**
 * `rounds` times: `trigger()` (post or broadcast), then wait for one frame on each of the listeners'
 * sockets; the time from just before the trigger to the last arrival.
 */
export async function measureFanOut(
  listeners: FanOutListeners,
  rounds: number,
  trigger: (i: number) => Promise<void>,
  /** Processes whose CPU time is read around each round, by name (pid null: not watched). */
  watched: Record<string, number | null> = {},
): Promise<FanOutResult> {
  const pids = Object.entries({ ...watched, 'load generator': process.pid, listeners: listeners.pid }).filter(
    (entry): entry is [string, number] => entry[1] !== null,
  );
  const cpuNow = () => pids.map(([, pid]) => cpuMs(pid));
  const times: number[] = [];
  const afterAnswer: number[] = [];
  const perRound: SlowRound[] = [];
  let frameBytes = 0;
  const kernelBefore = kernelCounters();
  let incomplete = 0;
  for (let i = 0; i < rounds; i++) {
    await listeners.arm();
    const cpuBefore = cpuNow();
    const t0 = monotonicMs();
    await trigger(i);
    const answered = monotonicMs();
    const { last, received, frameBytes: bytes } = await listeners.lastOf(listeners.count, 15_000);
    frameBytes = bytes;
    if (received < listeners.count) incomplete++;
    else {
      times.push(last - t0);
      afterAnswer.push(last - answered);
      const cpuAfter = cpuNow();
      const cpu = Object.fromEntries(pids.map(([name], k) => [name, cpuAfter[k]! - cpuBefore[k]!]));
      perRound.push({ ms: last - t0, cpu });
    }
  }
  const kernelAfter = kernelCounters();
  return {
    slowest: perRound.sort((a, b) => b.ms - a.ms).slice(0, 3),
    kernel:
      kernelBefore && kernelAfter
        ? {
            backlogDrops: kernelAfter.backlogDrops - kernelBefore.backlogDrops,
            retransmits: kernelAfter.retransmits - kernelBefore.retransmits,
          }
        : null,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    times,
    rounds,
    incomplete,
    frameBytes,
    afterAnswer: { p50: percentile(afterAnswer, 50), p99: percentile(afterAnswer, 99) },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
