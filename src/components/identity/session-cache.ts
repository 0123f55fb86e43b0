// Keeps what find-sessions read (the session, its user's grant, its key, the manager link) for a
// few seconds, so that a request does not spend a database round trip on its credentials: that
// lookup was a third of a read by id. Every check a session token passes still runs on each
// request (secret hash, revocation, expiry), on the cached record.
//
// A cached record must never outlive a change to what it holds. A committed write that changes
// what some accounts' credentials may do (credential-writes.ts says which writes, and whose) drops
// those accounts' records here at once, and on every other instance through Redis when REDIS_URL is
// set (InvalidationBus, channel `skein:auth`, the uids as a JSON list, or `*` for everyone); the
// accounts named include every account they manage, whose grant follows theirs. Before a cached
// record answers, the instance makes sure it has heard every invalidation published before the
// request (caughtUp). A lookup that was already running when records were dropped does not store its
// (possibly older) answer: each lookup notes the cache's generation before it reads and stores only if
// nothing was dropped since. Should Redis lose the news, TTL_MS bounds how long another instance may
// still accept a revoked session.
//
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import { createInvalidationBus, EVERYTHING, type InvalidationBus } from '../../platform/invalidation-bus.js';
import type { Database } from '../../platform/neo4j/database.js';
import { credentialOwners } from './credential-writes.js';
import { findManagedUids, type FoundSession } from './identity-repository.js';

const TTL_MS = 5_000;
const MAX_ENTRIES = 20_000;

/**
 * The accounts whose credentials changed, or null for every account (a write that could not say,
 * a schema change, or a subscriber that was away from Redis and may have missed news).
 */
export type ChangedAccounts = ReadonlySet<string> | null;

/** More accounts than this remembered with their last change: forget them, as a change of everyone. */
const MAX_CHANGED_ACCOUNTS = 50_000;

interface Entry {
  found: FoundSession;
  storedAt: number;
  /** Being read again behind the answers it gives. */
  refreshing?: boolean;
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** Counts the changes heard; a judgement notes it (generation) to learn later what changed since. */
  private changes = 0;
  /** The change that last concerned every account. */
  private everyoneChangedAt = 0;
  /** The change that last concerned each account named since then. */
  private readonly accountChangedAt = new Map<string, number>();
  private readonly invalidationListeners: ((changed: ChangedAccounts) => void)[] = [];
  /**
   * Drops the records that can no longer answer. Without it they stayed until an auth write emptied
   * the cache: 10,000 sockets' handshakes left 10,000 records (about 0.7 KiB each) on the heap.
   */
  private readonly sweeper: NodeJS.Timeout;

  private constructor(
    private readonly bus: InvalidationBus,
    private readonly ttlMs: number,
  ) {
    this.sweeper = setInterval(() => this.dropExpired(), ttlMs);
    this.sweeper.unref();
  }

  /** `ttlMs` is for tests; the service keeps records TTL_MS. */
  static async start(config: Config, db: Database, log: Logger, ttlMs = TTL_MS): Promise<SessionCache> {
    const bus = await createInvalidationBus(config, log, 'skein:auth', 'auth');
    const cache = new SessionCache(bus, ttlMs);
    bus.subscribe((what) => cache.clearLocal(parseChanged(what)));
    db.onCommit(async ({ runs }) => {
      const owners = credentialOwners(runs);
      if (owners === 'everyone') await cache.invalidateEverywhere();
      else if (owners.length > 0) await cache.invalidateEverywhere(await withManaged(db, owners));
    });
    return cache;
  }

  /** The record of `sessionId`, from the cache when fresh, otherwise read by `load` (and kept). */
  async lookup(sessionId: string, load: () => Promise<FoundSession | null>): Promise<FoundSession | null> {
    const entry = this.entries.get(sessionId);
    const age = entry ? Date.now() - entry.storedAt : Infinity;
    if (entry && age < this.ttlMs) {
      // Only once this instance has heard every invalidation published before this request: it may
      // have emptied the cache meanwhile, which the second look sees.
      if ((await this.bus.caughtUp()) && this.entries.get(sessionId) === entry) {
        if (age >= this.ttlMs / 2 && !entry.refreshing) {
          entry.refreshing = true;
          // A failed read leaves the record to its time to live, and the next answer tries again.
          this.read(sessionId, load).catch(() => (entry.refreshing = false));
        }
        return entry.found;
      }
    }
    return this.read(sessionId, load);
  }

  /** Reads the record and keeps it, unless the cache was emptied meanwhile. */
  private async read(
    sessionId: string,
    load: () => Promise<FoundSession | null>,
  ): Promise<FoundSession | null> {
    const generation = this.changes;
    const found = await load();
    if (generation === this.changes) {
      // Unknown ids are not kept: nobody could fill the cache with made-up tokens. A record read
      // again and gone (its session ended) goes.
      if (!found) this.entries.delete(sessionId);
      else {
        if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
        this.entries.set(sessionId, { found, storedAt: Date.now() });
      }
    }
    return found;
  }

  /**
   * Drops the records of these accounts (of every account without `changed`) here now and tells the
   * other instances (the write answers after that).
   */
  async invalidateEverywhere(changed: ReadonlySet<string> | null = null): Promise<void> {
    this.clearLocal(changed);
    await this.bus.publish(changed === null ? EVERYTHING : JSON.stringify([...changed]));
  }

  private clearLocal(changed: ChangedAccounts): void {
    const change = ++this.changes;
    if (changed === null || this.accountChangedAt.size + changed.size > MAX_CHANGED_ACCOUNTS) {
      this.everyoneChangedAt = change;
      this.accountChangedAt.clear();
      this.entries.clear();
    } else {
      for (const uid of changed) this.accountChangedAt.set(uid, change);
      for (const [sessionId, { found }] of this.entries) {
        if (concerns(changed, found.user.uid, found.session.acting_manager_uid))
          this.entries.delete(sessionId);
      }
    }
    for (const listener of this.invalidationListeners) listener(changed === null ? null : changed);
  }

  /**
   * Where this instance stands in the changes it heard: a credential judged at `g` may have changed
   * since when changedSince(g, …) says so (open sockets re-check theirs, live-credential.ts).
   */
  get generation(): number {
    return this.changes;
  }

  /** Whether a change concerning any of these accounts was heard after generation `judgedAt`. */
  changedSince(judgedAt: number, accounts: readonly (string | null)[]): boolean {
    if (this.everyoneChangedAt > judgedAt) return true;
    return accounts.some((uid) => uid !== null && (this.accountChangedAt.get(uid) ?? 0) > judgedAt);
  }

  /**
   * Calls `listener` with the accounts concerned (null: every account) each time records are dropped
   * here: after a local write that changes a credential (before that write answers) and when another
   * instance's news arrives through Redis.
   */
  onInvalidate(listener: (changed: ChangedAccounts) => void): void {
    this.invalidationListeners.push(listener);
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [sessionId, entry] of this.entries) {
      if (now - entry.storedAt >= this.ttlMs) this.entries.delete(sessionId);
    }
  }

  /** Records held now (expired ones included until the next sweep). */
  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.bus.close();
  }
}

/** Whether a change of these accounts concerns the credential of `uid` (acting for it: `actingManagerUid`). */
export function concerns(changed: ChangedAccounts, uid: string, actingManagerUid: string | null): boolean {
  return changed === null || changed.has(uid) || (actingManagerUid !== null && changed.has(actingManagerUid));
}

/** The named accounts and every account they manage, directly or through managed accounts. */
async function withManaged(db: Database, uids: readonly string[]): Promise<ReadonlySet<string>> {
  return new Set([...uids, ...(await findManagedUids(db, uids))]);
}

/** What another instance published: a JSON list of uids, or anything else for everyone. */
function parseChanged(what: string): ChangedAccounts {
  if (what === EVERYTHING) return null;
  try {
    const uids: unknown = JSON.parse(what);
    if (Array.isArray(uids) && uids.every((uid) => typeof uid === 'string')) return new Set(uids);
  } catch {
    // Not ours to read: forget everything, to be safe.
  }
  return null;
}
