// Read-your-own-writes across instances (issue 17): in a Neo4j cluster a read may be served by a
// secondary that has not yet applied a write the same client made a moment ago on another Skein
// instance. Each write transaction answers with a bookmark (the point it reached); a transaction
// started with that bookmark waits until its server has caught up to it.
//
// Within one instance the driver's process-wide bookmark manager already orders every read after
// every write (database.ts). Across instances, a client's bookmarks travel through Redis, keyed by
// its credential (a session, or an API key): after a write commits for a request that presented
// one, the write's bookmark is pushed on `skein:bookmarks:<s|k>:<id>` (the newest few kept, for 60 s);
// a request that presents that credential on any instance reads the key first (one LRANGE) and every
// Neo4j session it opens starts from those bookmarks (the request's state travels in an
// AsyncLocalStorage, so repositories and use cases pass nothing). A session minted by a request
// (sign-in, delegation, a key exchanged for a session) inherits the request's writes, so its first
// request elsewhere finds itself.
//
// Only a routing URI (neo4j://, neo4j+s://, neo4j+ssc://) can reach more than one server; with
// bolt:// every transaction runs on the one server, which has applied every commit, so nothing is
// set up and the request path is unchanged. Without REDIS_URL there is one instance, whose own
// bookmark manager suffices. Redis is best effort here, as for the auth bus: a failed read or write
// is logged and counted, and the request goes on with what this instance knows.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Redis } from 'ioredis';
import { parseApiKey, parseSessionToken } from '../auth/secrets.js';
import { presentedCredential, type Credentials } from '../auth/caller.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Database } from './database.js';

/** Long enough for any replica to catch up; a bookmark older than this is long applied everywhere. */
const TTL_MS = 60_000;
/**
 * Bookmarks kept per credential: the newest writes, so that two writes of one client racing on two
 * instances cannot leave only the older one (a list, not one value overwritten).
 */
const KEPT = 8;
/** A request waits at most this long for Redis before going on without carried bookmarks. */
const COMMAND_TIMEOUT_MS = 250;
const KEY_PREFIX = 'skein:bookmarks:';

/** What one request carries: the bookmarks it starts from, and whom its writes are recorded for. */
interface RequestBookmarks {
  carried: string[];
  /** Redis keys of the credentials this request acts for (the one it presented, any it minted). */
  keys: string[];
  /** The bookmarks of this request's last committed write, for a credential adopted afterwards. */
  written: string[];
  /** Cleared when the answer is sent: work the request left running records nothing for it. */
  open: boolean;
}

/** Whether a Neo4j URI can route transactions to several servers (a cluster, Aura). */
export function isRoutingUri(uri: string): boolean {
  return /^neo4j(\+s|\+ssc)?:\/\//.test(uri);
}

/** The credential a request presents, as a bookmark key (the credential authentication judges). */
function keyOf(credentials: Credentials): string | null {
  const presented = presentedCredential(credentials);
  if (presented?.kind === 'session') {
    const session = parseSessionToken(presented.token);
    return session ? sessionBookmarkKey(session.id) : null;
  }
  const key = presented?.kind === 'api_key' ? parseApiKey(presented.key) : null;
  return key ? apiKeyBookmarkKey(key.keyId) : null;
}

const sessionBookmarkKey = (sessionId: string) => `${KEY_PREFIX}s:${sessionId}`;
const apiKeyBookmarkKey = (keyId: string) => `${KEY_PREFIX}k:${keyId}`;

export class CausalBookmarks {
  private readonly requests = new AsyncLocalStorage<RequestBookmarks>();

  private constructor(
    private readonly redis: Redis,
    private readonly log: Logger,
    private readonly metrics: Metrics | undefined,
  ) {}

  /**
   * Sets up carrying for `db` when the deployment needs it (a routing URI and Redis); otherwise
   * does nothing, and requests never meet this module.
   */
  static async enable(
    config: Config,
    db: Database,
    log: Logger,
    metrics: Metrics | undefined,
  ): Promise<void> {
    if (!config.redisUrl || !config.neo4j.uri || !isRoutingUri(config.neo4j.uri)) return;
    const { Redis } = await import('ioredis');
    const redis = new Redis(config.redisUrl, {
      lazyConnect: true,
      connectTimeout: 10_000,
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      // Requests of one event-loop turn share one round trip.
      enableAutoPipelining: true,
      connectionName: 'skein-bookmarks',
    });
    redis.on('error', (error: Error) => log.warn({ err: error }, 'Redis connection error (bookmarks)'));
    try {
      await redis.connect();
    } catch (error) {
      redis.disconnect();
      throw new Error(`Redis at REDIS_URL cannot be reached: ${(error as Error).message}`, { cause: error });
    }
    db.carryBookmarks(new CausalBookmarks(redis, log, metrics));
  }

  /**
   * Runs `next` (the rest of a request) with the bookmarks recorded for its credential, read first.
   * `finished` registers a callback for when the answer has gone out.
   */
  async run(credentials: Credentials, finished: (done: () => void) => void, next: () => void): Promise<void> {
    const key = keyOf(credentials);
    const state: RequestBookmarks = {
      carried: key ? await this.load(key) : [],
      keys: key ? [key] : [],
      written: [],
      open: true,
    };
    finished(() => (state.open = false));
    this.requests.run(state, next);
  }

  /** The bookmarks the current request's Neo4j sessions start from (undefined outside a request). */
  carried(): string[] | undefined {
    const state = this.requests.getStore();
    return state?.open && state.carried.length > 0 ? state.carried : undefined;
  }

  /** Records a committed write's bookmarks for the current request's credentials. */
  async written(bookmarks: string[]): Promise<void> {
    const state = this.requests.getStore();
    if (!state?.open || bookmarks.length === 0) return;
    state.written = bookmarks;
    await Promise.all(state.keys.map((key) => this.record(key, bookmarks)));
  }

  /**
   * The current request's writes, earlier and later, also count for a credential it has just
   * created (a session it minted, an API key), whose first request may reach another instance.
   */
  async adopt(credential: { sessionId: string } | { keyId: string }): Promise<void> {
    const state = this.requests.getStore();
    if (!state?.open) return;
    const key =
      'sessionId' in credential
        ? sessionBookmarkKey(credential.sessionId)
        : apiKeyBookmarkKey(credential.keyId);
    state.keys.push(key);
    if (state.written.length > 0) await this.record(key, state.written);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
    this.redis.disconnect();
  }

  private async load(key: string): Promise<string[]> {
    try {
      const bookmarks = await this.redis.lrange(key, 0, KEPT - 1);
      this.metrics?.bookmarkLookups.inc({ outcome: bookmarks.length > 0 ? 'found' : 'none' });
      return [...new Set(bookmarks)];
    } catch (error) {
      this.metrics?.bookmarkLookups.inc({ outcome: 'error' });
      this.log.warn({ err: error }, 'Could not read the bookmarks of a request (reads may lag its writes)');
      return [];
    }
  }

  private async record(key: string, bookmarks: string[]): Promise<void> {
    try {
      await this.redis
        .multi()
        .lpush(key, ...bookmarks)
        .ltrim(key, 0, KEPT - 1)
        .pexpire(key, TTL_MS)
        .exec();
      this.metrics?.bookmarkRecords.inc({ outcome: 'ok' });
    } catch (error) {
      this.metrics?.bookmarkRecords.inc({ outcome: 'error' });
      this.log.warn({ err: error }, 'Could not record the bookmarks of a write (other instances may lag it)');
    }
  }
}
