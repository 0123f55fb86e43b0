// Where a bot resumes after a restart. Events are handled concurrently and may finish out of order,
// so the cursor to keep is the one below which every event has been handled: an event still running
// holds it back, and a restart hands that event (and any finished after it) out again rather than
// losing it. The file is replaced atomically (write a temporary file, sync, rename), so a crash
// leaves the old cursor or the new one, never half of one.
import { open, readFile, rename, unlink } from 'node:fs/promises';

export class CursorFile {
  private written: string | undefined;
  private latest: string | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** The stored cursor, or undefined when there is no file yet (or it is empty). */
  async read(): Promise<string | undefined> {
    try {
      const text = (await readFile(this.path, 'utf8')).trim();
      // The Python SDK writes {"cursor": "…"}: one cursor file serves a bot in either language.
      this.written = (text.startsWith('{') ? pythonCursor(text, this.path) : text) || undefined;
      return this.written;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Stores `cursor` after the writes queued before; a burst of calls writes only the latest. */
  write(cursor: string): Promise<void> {
    this.latest = cursor;
    this.chain = this.chain.then(async () => {
      const value = this.latest;
      if (value === undefined || value === this.written) return;
      try {
        await this.replace(value);
        this.written = value;
      } catch (error) {
        this.onError(error as Error);
      }
    });
    return this.chain;
  }

  /** Resolves once every write asked for so far is on disk. */
  flush(): Promise<void> {
    return this.chain;
  }

  private async replace(value: string): Promise<void> {
    const temporary = `${this.path}.${process.pid}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(`${value}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}

interface Entry {
  cursor: string;
  done: boolean;
}

/** The cursors of events in arrival order, and the highest one below which all are handled. */
export class HandledCursor {
  private readonly pending: Entry[] = [];

  constructor(
    private value: string | undefined,
    private readonly file: CursorFile | undefined,
  ) {}

  /** The cursor to resume from: every event up to it has been handled. */
  get current(): string | undefined {
    return this.value;
  }

  /** Where to start when nothing was stored: the position the first connection reported. */
  startAt(cursor: string): void {
    if (this.value !== undefined || this.pending.length > 0) return;
    this.value = cursor;
    void this.file?.write(cursor);
  }

  /** An event arrived (in order); hand the answer to finish() once it is handled. */
  begin(cursor: string): Entry {
    const entry = { cursor, done: false };
    this.pending.push(entry);
    return entry;
  }

  /** The event is handled; the cursor moves past every handled event at the head of the line. */
  finish(entry: Entry): void {
    entry.done = true;
    let moved = false;
    while (this.pending[0]?.done) {
      this.value = this.pending.shift()!.cursor;
      moved = true;
    }
    if (moved && this.value !== undefined) void this.file?.write(this.value);
  }

  flush(): Promise<void> {
    return this.file?.flush() ?? Promise.resolve();
  }
}

function pythonCursor(text: string, file: string): string {
  const saved = JSON.parse(text) as { cursor?: unknown };
  if (typeof saved.cursor !== 'string') throw new Error(`${file} is not a cursor file of a Skein bot`);
  return saved.cursor;
}
