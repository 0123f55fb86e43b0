// A bot that looks alive while it thinks (decision 031 of the service): "typing" with a status while
// a handler runs, and a reply that streams in as a model writes it, which a reader may stop.
//
//   const typing = keepTyping(client, message.id);       // shown and renewed every 4 s until stop()
//   await typing.setStatus('searching the docs…');
//   const reply = await streamReply(client, message.id, model.stream(prompt));
//   typing.stop();
//
// streamReply opens POST /v1/streams, appends the source's text (one append at a time; text that
// arrives meanwhile is joined, at most one append per `minIntervalMs`; a failed append is retried
// with the same seq and text, which the service answers the same), and finishes: the chunks joined
// become one ordinary reply. An exception from the source finishes it `incomplete` (what was written
// is posted, marked) and is thrown again; a reader's stop (409 stream_stopped) cancels the source
// (its iterator's return() and the AbortSignal handed to a source function) and finishes `stopped`.
import {
  SkeinError,
  type MessageInput,
  type MessageOutput,
  type Schemas,
  type SkeinClient,
} from './client.js';

export type Stream = Schemas['Stream'];

/** Text to stream: any async iterable of strings, or a function of an AbortSignal that answers one. */
export type TextSource = AsyncIterable<string> | ((signal: AbortSignal) => AsyncIterable<string>);

export interface StreamedReply {
  /** The stream as it ended: `ended` is finished, stopped, incomplete or abandoned (nothing written). */
  stream: Stream;
  /** The posted reply; null when nothing was written. */
  message: MessageOutput | null;
}

export interface StreamReplyOptions {
  /** The shortest time between two appends (text is joined meanwhile). Default 50 ms. */
  minIntervalMs?: number;
  /** Aborting it stops the stream as a reader's stop would (the source is cancelled, the reply posted). */
  signal?: AbortSignal;
  /** How many times a failed append or finish is tried again (network errors, 429, 5xx). Default 5. */
  retries?: number;
}

export async function streamReply(
  client: SkeinClient,
  parentId: string,
  source: TextSource,
  extra: Omit<MessageInput, 'content' | 'parent_id' | 'audience'> = {},
  options: StreamReplyOptions = {},
): Promise<StreamedReply> {
  const minIntervalMs = options.minIntervalMs ?? 50;
  const retries = options.retries ?? 5;
  const opened = await client.request<Stream>('POST', '/v1/streams', {
    ...extra,
    content: '',
    parent_id: parentId,
    audience: 'parent',
  });
  const id = opened.stream_id;
  const cancel = new AbortController();
  options.signal?.addEventListener('abort', () => cancel.abort(), { once: true });
  const iterable = typeof source === 'function' ? source(cancel.signal) : source;
  const iterator = iterable[Symbol.asyncIterator]();
  let seq = 0;
  let pending = '';
  let lastAppend = 0;
  let stopped = false;

  /** Appends what is pending as the next chunk; false once a reader has stopped the stream. */
  const flush = async (): Promise<boolean> => {
    if (pending.length === 0) return true;
    const text = pending;
    pending = '';
    try {
      // The service bounds a chunk at 16,384 characters: longer text goes in several.
      for (let at = 0; at < text.length; at += 16_384) {
        const next = seq + 1;
        await retried(retries, () =>
          client.request('POST', `/v1/streams/${id}/chunks`, {
            seq: next,
            text: text.slice(at, at + 16_384),
          }),
        );
        seq = next;
      }
      lastAppend = Date.now();
      return true;
    } catch (error) {
      if (error instanceof SkeinError && error.code === 'stream_stopped') return false;
      throw error;
    }
  };

  let failure: unknown;
  try {
    for (;;) {
      if (cancel.signal.aborted) {
        stopped = true;
        break;
      }
      const next = await iterator.next();
      if (next.done) break;
      pending += next.value;
      if (Date.now() - lastAppend >= minIntervalMs && !(await flush())) {
        stopped = true;
        break;
      }
    }
    if (!stopped && !(await flush())) stopped = true;
  } catch (error) {
    failure = error;
  }
  if (stopped || failure !== undefined) {
    cancel.abort();
    await iterator.return?.().catch(() => undefined);
  }
  const finished = await retried(retries, () =>
    client.request<StreamedReply>('POST', `/v1/streams/${id}/finish`, {
      last_seq: seq,
      incomplete: failure !== undefined,
    }),
  );
  // Rethrown as the source threw it, once the stream is finished.
  if (failure !== undefined) throw failure as Error;
  return finished;
}

/** Typing shown while work runs: started now, renewed until stop(); failures are ignored (it is a hint). */
export interface Typing {
  /** Shows a one-line status (at most 64 characters), such as "searching the docs…". */
  setStatus(status: string | null): Promise<void>;
  stop(): Promise<void>;
}

export interface TypingOptions {
  /** Start showing after this long (a fast answer shows no typing); null: only once setStatus is called. Default 0. */
  delayMs?: number | null;
  /** Renew this often. Default 4 s (the service ends a signal 8 s after the last renewal). */
  renewMs?: number;
}

export function keepTyping(client: SkeinClient, messageId: string, options: TypingOptions = {}): Typing {
  const renewMs = options.renewMs ?? 4_000;
  let status: string | null = null;
  let stopped = false;
  let started = false;
  let last: Promise<void> = Promise.resolve();
  let renewing: ReturnType<typeof setInterval> | undefined;
  const send = (op: 'start' | 'stop') =>
    client
      .request('POST', '/v1/typing', { message_id: messageId, op, ...(status === null ? {} : { status }) })
      .then(
        () => undefined,
        () => undefined,
      );
  const start = () => {
    if (stopped || started) return;
    started = true;
    last = send('start');
    renewing = setInterval(() => {
      if (!stopped) last = send('start');
    }, renewMs);
    renewing.unref?.();
  };
  const delay = options.delayMs === null ? undefined : setTimeout(start, options.delayMs ?? 0);
  delay?.unref?.();
  return {
    setStatus: async (text) => {
      status = text;
      if (stopped) return;
      if (!started) return start();
      await last;
      last = send('start');
      await last;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(delay);
      clearInterval(renewing);
      if (!started) return;
      await last;
      await send('stop');
    },
  };
}

/** Calls `attempt` until it succeeds or fails for good (a 4xx but 429), at most `retries` times more. */
async function retried<T>(retries: number, attempt: () => Promise<T>): Promise<T> {
  for (let tried = 0; ; tried += 1) {
    try {
      return await attempt();
    } catch (error) {
      const transient = !(error instanceof SkeinError) || error.status === 429 || error.status >= 500;
      if (!transient || tried >= retries) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(4_000, 250 * 2 ** tried)));
    }
  }
}
