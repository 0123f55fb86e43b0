// How authentication reads a credential's records, and how it records their use.
//
// A request reads its session or key at once. A socket re-checks its credential on every heartbeat
// (realtime-heartbeat.ts), and with one read per re-check 10,000 open sockets cost the database 333
// session reads and about 170 last-use writes a second, all the time: in the 10,000-member fan-out
// bench that was most of the service's busy time between posts (measured 2026-11-26). Re-checks
// therefore wait up to a short window and are read together, one statement per window; nothing is
// judged differently, only later by at most that window. Last-use times, written at most once a
// minute per credential, are gathered for a second and written together; a shutdown may lose the
// last second of them (they only say when a credential was last seen).
import DataLoader from 'dataloader';
import type { AppContext } from '../../platform/context.js';
import * as repo from './identity-repository.js';

/** Where authentication reads a session's or key's records. */
export interface CredentialReads {
  session(sessionId: string): Promise<repo.FoundSession | null>;
  apiKey(keyId: string): Promise<repo.FoundKey | null>;
}

/** One read per credential, now: the request path. */
export function directReads(ctx: AppContext): CredentialReads {
  return {
    session: (sessionId) => repo.findSession(ctx.db, sessionId),
    apiKey: (keyId) => repo.findApiKey(ctx.db, keyId),
  };
}

/** Ids gathered per statement at most: a heartbeat window of a large instance stays one query or a few. */
const MAX_GATHERED = 1000;
/** Last-use times wait this long to be written with others. */
const USE_WINDOW_MS = 1000;

/** DataLoader, with no cache, that runs what arrives within `windowMs` together. */
function gatherer<V>(
  windowMs: number,
  load: (ids: readonly string[]) => Promise<Map<string, V>>,
): DataLoader<string, V | null> {
  return new DataLoader(
    async (ids) => {
      const found = await load([...new Set(ids)]);
      return ids.map((id) => found.get(id) ?? null);
    },
    {
      cache: false,
      maxBatchSize: MAX_GATHERED,
      // unref: a pending batch must not keep a stopping process alive.
      batchScheduleFn: (run) => setTimeout(run, windowMs).unref(),
    },
  );
}

/** Per context, per window (a heartbeat setting changed at run time gets its own). */
const gathered = new WeakMap<AppContext, Map<number, CredentialReads>>();

/** Reads that wait up to `windowMs` to share one statement with others: socket re-checks. */
export function gatheredReads(ctx: AppContext, windowMs: number): CredentialReads {
  let byWindow = gathered.get(ctx);
  if (!byWindow) {
    byWindow = new Map();
    gathered.set(ctx, byWindow);
  }
  let reads = byWindow.get(windowMs);
  if (!reads) {
    const sessions = gatherer(windowMs, (ids) => repo.findSessions(ctx.db, ids));
    const keys = gatherer(windowMs, (ids) => repo.findApiKeys(ctx.db, ids));
    reads = { session: (id) => sessions.load(id), apiKey: (id) => keys.load(id) };
    byWindow.set(windowMs, reads);
  }
  return reads;
}

interface UseRecorders {
  session: DataLoader<string, null>;
  key: DataLoader<string, null>;
}
const useRecorders = new WeakMap<AppContext, UseRecorders>();

/**
 * Records that a session or key was presented, within about a second. Best effort and off the
 * request path: a failure is logged, and only makes last_used_at older.
 */
export function recordUse(ctx: AppContext, kind: 'session' | 'key', id: string): void {
  let recorders = useRecorders.get(ctx);
  if (!recorders) {
    const touch = (write: (ids: readonly string[]) => Promise<void>) =>
      gatherer<null>(USE_WINDOW_MS, async (ids) => {
        await write(ids);
        return new Map();
      });
    recorders = {
      session: touch((ids) => repo.touchSessions(ctx.db, ids)),
      key: touch((ids) => repo.touchApiKeys(ctx.db, ids)),
    };
    useRecorders.set(ctx, recorders);
  }
  recorders[kind].load(id).catch((error: unknown) => ctx.log.warn({ err: error }, `${kind} touch failed`));
}
