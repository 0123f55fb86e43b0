// Keeps the JSON answers of the everyday message reads (a message, a timeline page, a thread, a
// search; the routes marked `cacheable`) for a few seconds, keyed by who asked and the exact URL,
// so that asking again costs a map lookup instead of two Neo4j queries that hydrate 50 messages.
//
// A kept answer must never show what the graph no longer holds, nor anything the caller may no
// longer see. The rule is deliberately blunt, so that no write can be forgotten: every committed
// write transaction empties the cache, of this instance at once and of every other instance through
// Redis when REDIS_URL is set, before the write answers, unless every statement it ran is one that
// cannot change any message view (VIEW_NEUTRAL: sessions, keys, webhook bookkeeping, the event
// log's own numbering). Before a kept answer is served the instance makes sure it has heard every
// invalidation published before the request (caughtUp), and a read that was already running when
// the cache was emptied does not store its (possibly older) answer (the generation check). TTL_MS
// bounds what a lost Redis message can cost. So the cache pays off while a deployment reads more
// than it writes; under a steady stream of writes it is mostly empty, and reads cost what they did.
//
// The key holds the caller's uid, effective permissions and acting manager, so a credential with
// fewer scopes never gets an answer another credential of the same account was given; logout, key
// revocation and password changes need nothing here, since a revoked credential is refused by
// authentication before the cache is asked.
import type { Caller } from '../auth/caller.js';
import type { Config } from '../config.js';
import { createInvalidationBus, type InvalidationBus } from '../invalidation-bus.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Database } from '../neo4j/database.js';

const TTL_MS = 5_000;
export const VIEWS_CHANNEL = 'skein:views';

/** Statement folders whose writes change no message, audience, membership, user or read state. */
const NEUTRAL_AREAS = ['identity/', 'webhooks/', 'event-log/'];
/** Single statements elsewhere that change nothing a message view shows. */
const NEUTRAL = new Set([
  // A stored upload shows nowhere until a message that attaches it is posted (another write).
  'files/create-file',
]);

export function changesViews(statement: string): boolean {
  return !NEUTRAL_AREAS.some((area) => statement.startsWith(area)) && !NEUTRAL.has(statement);
}

/** The cache key of `caller`'s answer to `url` (path and query string, as the client sent them). */
export function viewKey(caller: Caller, url: string): string {
  return `${caller.uid}\n${caller.permissions.join(',')}\n${caller.actingManagerUid ?? ''}\n${url}`;
}

interface Entry {
  body: string;
  storedAt: number;
}

export class ViewCache {
  /** In order of last use: the first entries are the first to go when the budget is spent. */
  private readonly entries = new Map<string, Entry>();
  private size = 0;
  private generation = 0;

  private constructor(
    private readonly bus: InvalidationBus,
    /** Budget in characters of keys and bodies (about bytes: answers are mostly ASCII). */
    private readonly budget: number,
    private readonly metrics: Metrics,
  ) {}

  static async start(config: Config, db: Database, log: Logger, metrics: Metrics): Promise<ViewCache> {
    const bus = await createInvalidationBus(config, log, VIEWS_CHANNEL, 'views');
    const cache = new ViewCache(bus, config.viewCacheMb * 1024 * 1024, metrics);
    bus.subscribe(() => cache.clearLocal());
    // Also with the cache switched off here: other instances may keep answers this write changes.
    db.onCommit(async (statements) => {
      if ([...statements].some(changesViews)) await cache.invalidateEverywhere();
    });
    return cache;
  }

  /** The kept answer for `key` when there is a fresh one, otherwise null. */
  async lookup(key: string): Promise<string | null> {
    if (this.budget === 0) return null;
    const entry = this.entries.get(key);
    if (entry && Date.now() - entry.storedAt < TTL_MS) {
      // Only once every invalidation published before this request has been heard: it may have
      // emptied the cache meanwhile, which the second look sees.
      if ((await this.bus.caughtUp()) && this.entries.get(key) === entry) {
        this.entries.delete(key);
        this.entries.set(key, entry);
        this.metrics.viewCacheLookups.inc({ outcome: 'hit' });
        return entry.body;
      }
    }
    this.metrics.viewCacheLookups.inc({ outcome: 'miss' });
    return null;
  }

  /** To be taken before reading the answer that store() may keep. */
  mark(): number {
    return this.generation;
  }

  /** Keeps `body` as the answer for `key`, unless a write committed since `mark` was taken. */
  store(key: string, mark: number, body: string): void {
    if (mark !== this.generation || this.budget === 0) return;
    const cost = key.length + body.length;
    if (cost > this.budget / 8) return;
    this.remove(key);
    while (this.size + cost > this.budget) {
      const oldest = this.entries.keys().next().value as string;
      this.remove(oldest);
    }
    this.entries.set(key, { body, storedAt: Date.now() });
    this.size += cost;
  }

  /** Empties this instance's cache now and tells the others (the write answers after that). */
  async invalidateEverywhere(): Promise<void> {
    this.clearLocal();
    await this.bus.publish();
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.size -= key.length + entry.body.length;
  }

  private clearLocal(): void {
    this.generation++;
    this.entries.clear();
    this.size = 0;
  }

  async close(): Promise<void> {
    await this.bus.close();
  }
}
