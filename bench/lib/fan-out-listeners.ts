// The bench's side of lib/listener-process.ts: the fan-out's sockets, opened, armed for a round and
// read in a process of their own, one request at a time over the IPC channel. The stream workload's
// live sockets (?live=true) are read there too: when each chunk reached them.
import type {
  Answered,
  Arrivals,
  ChunkArrivals,
  ListenerAnswer,
  ListenerRequest,
  TypingSent,
} from './listener-process.js';
import { startListenerProcess } from './processes.js';

/** A request as the caller gives it: its id is added when it is sent. */
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Request = WithoutId<ListenerRequest>;

export class FanOutListeners {
  private nextId = 0;
  private readonly pending = new Map<number, (answer: ListenerAnswer) => void>();
  /** Sockets open and ready. */
  count = 0;

  private constructor(private readonly listener: ReturnType<typeof startListenerProcess>) {
    listener.child.on('message', (answer: ListenerAnswer) => {
      this.pending.get(answer.id)?.(answer);
      this.pending.delete(answer.id);
    });
    listener.child.once('exit', () => {
      const gone: ListenerAnswer = {
        id: -1,
        ok: false,
        error: `the listener process exited:\n${listener.output()}`,
      };
      for (const settle of this.pending.values()) settle(gone);
      this.pending.clear();
    });
  }

  /** Starts a listener process and opens `urls` in it (Skein's sockets are ready at their ready frame). */
  static async open(urls: string[], waitForReadyFrame: boolean): Promise<FanOutListeners> {
    const listeners = new FanOutListeners(startListenerProcess());
    try {
      const answer = await listeners.request({ op: 'open', urls, waitForReadyFrame });
      listeners.count = answer.opened ?? 0;
      return listeners;
    } catch (error) {
      await listeners.listener.stop();
      throw error;
    }
  }

  /** The listener process's pid (its CPU time is read around each round). */
  get pid(): number {
    return this.listener.child.pid!;
  }

  /** Starts a round: arrivals from now on are counted. */
  async arm(): Promise<void> {
    await this.request({ op: 'arm' });
  }

  /** Waits until `count` frames arrived since arm() (or `timeoutMs` passed). */
  async lastOf(count: number, timeoutMs: number): Promise<Arrivals> {
    return (await this.request({ op: 'last', count, timeoutMs })).arrivals!;
  }

  /**
   * The chunks of these streams (each with its last seq) as the sockets got them, once `sockets`
   * sockets (all by default) have each stream's last one, or `timeoutMs` passed; the streams are then
   * forgotten.
   */
  async chunksOf(
    streams: { stream_id: string; seq: number }[],
    timeoutMs: number,
    sockets = this.count,
  ): Promise<Record<string, ChunkArrivals>> {
    return (await this.request({ op: 'chunks', streams, sockets, timeoutMs })).chunks!;
  }

  /** Each socket sends its typing frame (`{"type": "typing", …}`) once a second, spread evenly, until stopTyping(). */
  async startTyping(frames: (Record<string, unknown> | null)[]): Promise<void> {
    await this.request({ op: 'typing-start', frames });
  }

  /** Stops the typing; with `stopFrames` each typist then says stop. Answers the signals sent and answered. */
  async stopTyping(stopFrames: boolean): Promise<TypingSent> {
    return (await this.request({ op: 'typing-stop', stopFrames })).typing!;
  }

  /** Closes the sockets with a closing handshake and stops the process. */
  async close(): Promise<void> {
    if (this.listener.child.connected) await this.request({ op: 'close' }).catch(() => undefined);
    await this.listener.stop();
  }

  private request(request: Request): Promise<Answered> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (!this.listener.child.connected)
        return reject(new Error(`the listener process is gone:\n${this.listener.output()}`));
      this.pending.set(id, (answer) => (answer.ok ? resolve(answer) : reject(new Error(answer.error))));
      this.listener.child.send({ ...request, id });
    });
  }
}
