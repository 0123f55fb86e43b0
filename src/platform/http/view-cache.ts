// Keeps the JSON answers of the everyday message reads (a message, a timeline page, a thread, a
// search; the routes marked `cacheable`) for a few seconds, keyed by who asked and the exact URL,
// so that asking again costs a map lookup instead of two Neo4j queries that hydrate 50 messages.
//
// A kept answer must never show what the graph no longer holds, nor anything the caller may no
// longer see. The rule is deliberately blunt, so that no write can be forgotten: every committed
// write transaction empties the cache, of this instance at once and of every other instance through
// Redis when REDIS_URL is set, before the write answers, unless every statement it ran is one that
// cannot change any message view (NEUTRAL: sessions, keys, webhook bookkeeping, the event log's own
// numbering, reads). The one exception is the everyday write, a post that is not public: it says
// whom its messages are visible to (Tx.onlyVisibleTo), and only their answers are forgotten. That
// is sound because every view shows only messages its viewer may see (the visibility rule, checked
// by test/security/visibility-model.int.test.ts), so a new message changes no one else's answers.
// When such a post also creates only new roots outside channels (no reply, no channel: no message
// that was there before gains an edge), a viewer's conversation pages with users outside the post's
// audience stay too: a conversation holds only messages between its two users, and the post is not
// one of those, nor does it change one (chat traffic reads a user's other conversations meanwhile).
// Before a kept answer is served the instance makes sure it has heard every invalidation published
// before the request (caughtUp), and a read that was already running when its viewer's answers
// were forgotten does not store its (possibly older) answer (the sequence check). TTL_MS bounds
// what a lost Redis message can cost.
//
// The key holds the caller's uid, effective permissions and acting manager, so a credential with
// fewer scopes never gets an answer another credential of the same account was given; logout, key
// revocation and password changes need nothing here, since a revoked credential is refused by
// authentication before the cache is asked.
import type { Caller } from '../auth/caller.js';
import type { Config } from '../config.js';
import { EVERYTHING, createInvalidationBus, type InvalidationBus } from '../invalidation-bus.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Committed, Database } from '../neo4j/database.js';

const TTL_MS = 5_000;
export const VIEWS_CHANNEL = 'skein:views';
/** Past this many viewers a change forgets everything (one short message instead of a long one). */
export const MAX_NAMED_VIEWERS = 1_000;
/** Viewers whose last forgetting is remembered; past it, everything is forgotten and it starts over. */
const MAX_TRACKED_VIEWERS = 100_000;

/** Statement folders whose writes change no message, audience, membership, user or read state. */
const NEUTRAL_AREAS = ['identity/', 'webhooks/', 'event-log/'];
/** Single statements elsewhere that change nothing a message view shows. */
const NEUTRAL = new Set([
  // A stored upload shows nowhere until a message that attaches it is posted (another write).
  'files/create-file',
  // Challenges of emailed codes and contact verification, which no view shows: asking for a code
  // and trying a wrong one are anonymous (security review 2026-11-28 #7). Verifying a contact or
  // an endpoint runs statements of its own that are not neutral.
  'contacts/save-challenge',
  'contacts/lock-challenge',
  'contacts/count-wrong-try',
  'contacts/delete-challenge',
  'contacts/use-challenge',
  // A new account (registration is anonymous too; the session that signs it in is identity/): it
  // has no message, receivers edge or membership yet, and its uid is one no message has held, since
  // a deleted user stays as a tombstone (users/delete-managed-user). A conversation with a uid that
  // did not exist was a 404, which is never kept.
  'users/create-user',
  // The lock a managed user's creation takes on its manager (a SET and REMOVE that change nothing).
  'users/count-managed-users',
  // Reads that run inside write transactions: a post's checks, a profile edit's check of a context
  // origin, and the answers of edits.
  'users/judge-context-origin',
  'messages/resolve-post-refs',
  'messages/find-mentioned',
  'messages/hydrate',
  // The stored answer of an idempotent post, which no view shows.
  'messages/save-idempotent-answer',
]);
/**
 * The writes whose visibility claim (Tx.onlyVisibleTo) is trusted: they create messages and their
 * edges, so what they change is seen by whoever may see those messages, and by no one else.
 */
const CREATES_MESSAGES = new Set(['messages/write-post']);

export function changesViews(statement: string): boolean {
  return !NEUTRAL_AREAS.some((area) => statement.startsWith(area)) && !NEUTRAL.has(statement);
}

/** Some viewers' answers to forget: all of them, or all but their conversations with the others. */
export interface ViewersChange {
  viewers: ReadonlySet<string>;
  /** Keep each viewer's conversation pages with users outside `viewers` (a post of new roots only). */
  keepOutsideConversations: boolean;
}

/**
 * Profile edits, the user's own and a manager's of a managed user (users/profile-fields.ts): no
 * view shows their fields but the user's own context reads, which show its context origin. So an
 * edit forgets the user's own answers when it sets the origin, and nobody's otherwise; until
 * 2026-12-02 each one emptied every instance's views (security review #1).
 */
const PROFILE_WRITES = new Set(['users/set-profile-fields', 'users/update-managed-user']);

function profileWriteViewers(runs: Committed['runs']): Set<string> {
  const viewers = new Set<string>();
  for (const { params } of runs) {
    const changes = (params.changes ?? {}) as Record<string, unknown>;
    if ('context_origin_id' in changes) viewers.add(String(params.uid));
  }
  return viewers;
}

/** Whose answers a committed transaction may have changed: nobody, some viewers, or everybody. */
export function viewersChanged({
  statements,
  runs,
  visibleTo,
  newRootsOnly,
}: Committed): 'nobody' | 'everybody' | ViewersChange {
  const changing = [...statements].filter(changesViews);
  if (changing.length === 0) return 'nobody';
  if (changing.every((statement) => PROFILE_WRITES.has(statement))) {
    const viewers = profileWriteViewers(runs);
    return viewers.size === 0 ? 'nobody' : { viewers, keepOutsideConversations: false };
  }
  if (visibleTo && visibleTo.size <= MAX_NAMED_VIEWERS && changing.every((s) => CREATES_MESSAGES.has(s)))
    return { viewers: visibleTo, keepOutsideConversations: newRootsOnly };
  return 'everybody';
}

/** The other user of a conversation page's key (GET /v1/messages/conversation/{uid}), else null. */
function conversationWith(key: string): string | null {
  const url = key.slice(key.lastIndexOf('\n') + 1);
  const match = CONVERSATION_URL.exec(url);
  return match ? decodeURIComponent(match[1]!) : null;
}
const CONVERSATION_URL = /^\/v1\/messages\/conversation\/([^/?#]+)(?:[?#]|$)/;

/**
 * The bus message of a change: the viewers' uids, comma-separated, then KEEP_OUTSIDE when their
 * outside conversations stay. An instance that does not know the mark forgets all of those
 * viewers' answers (and the mark names no one): more than needed, never less.
 */
const KEEP_OUTSIDE = '~keep-outside-conversations';
function encodeChange({ viewers, keepOutsideConversations }: ViewersChange): string {
  return [...viewers, ...(keepOutsideConversations ? [KEEP_OUTSIDE] : [])].join(',');
}
function decodeChange(what: string): 'everybody' | ViewersChange {
  if (what === EVERYTHING) return 'everybody';
  const parts = what.split(',');
  const keepOutsideConversations = parts.at(-1) === KEEP_OUTSIDE;
  return {
    viewers: new Set(keepOutsideConversations ? parts.slice(0, -1) : parts),
    keepOutsideConversations,
  };
}

/** The cache key of `caller`'s answer to `url` (path and query string, as the client sent them). */
export function viewKey(caller: Caller, url: string): string {
  return `${caller.uid}\n${caller.permissions.join(',')}\n${caller.actingManagerUid ?? ''}\n${url}`;
}

interface Entry {
  viewer: string;
  body: string;
  storedAt: number;
}

export class ViewCache {
  /** In order of last use: the first entries are the first to go when the budget is spent. */
  private readonly entries = new Map<string, Entry>();
  /** The keys of each viewer's entries. */
  private readonly keysOf = new Map<string, Set<string>>();
  private size = 0;
  /** Counts forgettings; a read notes it before it starts (mark) and stores only if none touched it since. */
  private sequence = 0;
  private everythingAt = 0;
  private readonly viewerAt = new Map<string, number>();

  private constructor(
    private readonly bus: InvalidationBus,
    /** Budget in characters of keys and bodies (about bytes: answers are mostly ASCII). */
    private readonly budget: number,
    private readonly metrics: Metrics,
  ) {}

  static async start(config: Config, db: Database, log: Logger, metrics: Metrics): Promise<ViewCache> {
    const bus = await createInvalidationBus(config, log, VIEWS_CHANNEL, 'views');
    const cache = new ViewCache(bus, config.viewCacheMb * 1024 * 1024, metrics);
    bus.subscribe((what) => cache.forgetLocal(decodeChange(what)));
    // Also with the cache switched off here: other instances may keep answers this write changes.
    db.onCommit(async (committed) => {
      const viewers = viewersChanged(committed);
      if (viewers !== 'nobody') await cache.forgetEverywhere(viewers);
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
    return this.sequence;
  }

  /** Keeps `body` as `viewer`'s answer for `key`, unless their answers were forgotten since `mark`. */
  store(key: string, viewer: string, mark: number, body: string): void {
    if (this.budget === 0 || this.everythingAt > mark || (this.viewerAt.get(viewer) ?? 0) > mark) return;
    const cost = key.length + body.length;
    if (cost > this.budget / 8) return;
    this.remove(key);
    while (this.size + cost > this.budget) this.remove(this.entries.keys().next().value as string);
    this.entries.set(key, { viewer, body, storedAt: Date.now() });
    let keys = this.keysOf.get(viewer);
    if (!keys) this.keysOf.set(viewer, (keys = new Set()));
    keys.add(key);
    this.size += cost;
  }

  /** Forgets these viewers' answers (or all) here now and tells the others (the write answers after that). */
  async forgetEverywhere(change: 'everybody' | ViewersChange): Promise<void> {
    this.forgetLocal(change);
    await this.bus.publish(change === 'everybody' ? EVERYTHING : encodeChange(change));
  }

  private forgetLocal(change: 'everybody' | ViewersChange): void {
    this.sequence++;
    if (change === 'everybody' || this.viewerAt.size + change.viewers.size > MAX_TRACKED_VIEWERS) {
      this.everythingAt = this.sequence;
      this.viewerAt.clear();
      this.entries.clear();
      this.keysOf.clear();
      this.size = 0;
      return;
    }
    const { viewers, keepOutsideConversations } = change;
    for (const viewer of viewers) {
      // Reads under way for this viewer store nothing, whatever their URL (the sequence check).
      this.viewerAt.set(viewer, this.sequence);
      for (const key of this.keysOf.get(viewer) ?? []) {
        const other = keepOutsideConversations ? conversationWith(key) : null;
        if (other === null || viewers.has(other)) this.remove(key);
      }
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.size -= key.length + entry.body.length;
    const keys = this.keysOf.get(entry.viewer);
    keys?.delete(key);
    if (keys?.size === 0) this.keysOf.delete(entry.viewer);
  }

  async close(): Promise<void> {
    await this.bus.close();
  }
}
