// Keeps what find-sessions read (the session, its user's grant, its key, the manager link) for a
// few seconds, so that a request does not spend a database round trip on its credentials: that
// lookup was a third of a read by id. Every check a session token passes still runs on each
// request (secret hash, revocation, expiry), on the cached record.
//
// A cached record must never outlive a change to what it holds. Any committed write that ran a
// statement able to change a session, a user's grant or an API key (AUTH_STATEMENTS) empties the
// cache of this instance at once, and of every other instance through Redis when REDIS_URL is set
// (InvalidationBus, channel `skein:auth`); before a cached record answers, the instance makes sure it has heard every
// invalidation published before the request (caughtUp). A lookup that was already running when the
// cache was emptied does not store its (possibly older) answer: each lookup notes the cache's
// generation before it reads and stores only if no emptying happened since. Should Redis lose the
// news, TTL_MS bounds how long another instance may still accept a revoked session.
//
// A record past half its time to live still answers, and is read again behind that answer (once at a
// time), so a client that keeps making requests does not pay the round trip every TTL_MS: a bot
// posting every second or two lost 3-9 ms on every third post to it (2026-11-28). The bound holds:
// a record answers only within TTL_MS of the read that stored it.
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import { createInvalidationBus, type InvalidationBus } from '../../platform/invalidation-bus.js';
import type { Database } from '../../platform/neo4j/database.js';
import type { FoundSession } from './identity-repository.js';

const TTL_MS = 5_000;
const MAX_ENTRIES = 20_000;

/** Statement folders whose writes can change what a session grants. */
const AUTH_AREAS = ['identity/', 'users/', 'contacts/'];
/** Writes in those folders that cannot change any cached record (they only add new things). */
const HARMLESS = new Set([
  'identity/create-session',
  'identity/create-api-key',
  'identity/touch-api-keys',
  // Only last_used_at, which no check reads and the session list reads from the database.
  'identity/touch-sessions',
  'users/create-user',
  // Challenges of emailed codes and contact verification, which no credential check reads: asking
  // for a code and trying a wrong one (anonymous, security review 2026-11-28 #7) empty nothing. A
  // right code's own change (a verified contact, a new password) comes with statements that do.
  'contacts/save-challenge',
  'contacts/lock-challenge',
  'contacts/count-wrong-try',
  'contacts/delete-challenge',
  'contacts/use-challenge',
]);

export function changesAuth(statement: string): boolean {
  return AUTH_AREAS.some((area) => statement.startsWith(area)) && !HARMLESS.has(statement);
}

interface Entry {
  found: FoundSession;
  storedAt: number;
  /** Being read again behind the answers it gives. */
  refreshing?: boolean;
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private emptied = 0;
  private readonly invalidationListeners: (() => void)[] = [];
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
    bus.subscribe(() => cache.clearLocal());
    db.onCommit(async ({ statements }) => {
      if ([...statements].some(changesAuth)) await cache.invalidateEverywhere();
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
    const generation = this.emptied;
    const found = await load();
    if (generation === this.emptied) {
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

  /** Empties this instance's cache now and tells the others (the write answers after that). */
  async invalidateEverywhere(): Promise<void> {
    this.clearLocal();
    await this.bus.publish();
  }

  private clearLocal(): void {
    this.emptied++;
    this.entries.clear();
    for (const listener of this.invalidationListeners) listener();
  }

  /**
   * How many times this instance's cache was emptied: a credential judged when it was `g` may have
   * changed since if it is no longer `g` (open sockets re-check theirs, live-credential.ts).
   */
  get generation(): number {
    return this.emptied;
  }

  /**
   * Calls `listener` each time the cache is emptied here: after a local write that may change a
   * credential (before that write answers) and when another instance's news arrives through Redis.
   */
  onInvalidate(listener: () => void): void {
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
