// The credential behind an open socket, kept current between heartbeats (security review
// 2026-11-28, findings 4 and 6): a logout, a session or key revocation, a password change, a bot's
// deactivation or deletion, a manager's removal or an administrator's change of scopes or API access
// reaches open sockets at once, not at their next heartbeat.
//
// How: every such write drops the records of the accounts it concerns from the session cache, here
// before it answers and on every other instance when Redis brings the news (session-cache.ts), and
// notes that change against those accounts. A credential judged at the cache's generation g is
// current while no change concerning its account (or the manager it acts for) was heard after g: a
// profile edit or any write that names other accounts leaves it current (security review
// 2026-12-02, finding 1). When a change concerns it, it is judged again at once (the reads of the
// sockets concerned gathered into one statement per thousand, credential-reads.ts), and until that
// judgement answers no notification frame leaves: both transports ask `mayDeliver()` right before
// each send. A credential that fails ends its socket with the refusal's close code and reason (4401,
// 4403, or 1013 when the database could not answer; the client reconnects with since and loses
// nothing).
//
// What a socket needs is said here once: realtime.connect to connect at all, and messages.read,
// because every frame carries message content (as GET /v1/notifications needs it).
import type { Caller, Credentials } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { gatheredReads, type CredentialReads } from '../identity/credential-reads.js';
import { concerns, type ChangedAccounts } from '../identity/session-cache.js';
import { authenticate } from '../identity/sessions.js';
import { SocketRefusal, refusalFor } from './realtime-auth.js';
import { CLOSE_CODES, realtimeSettings } from './realtime-settings.js';

/** The scopes every live connection needs, at connect and at every re-check. */
export function assertMayListen(caller: Caller): void {
  assertScope(caller, 'realtime.connect');
  assertScope(caller, 'messages.read');
}

/** The caller behind the credentials, allowed to listen; a SocketRefusal or AppError otherwise. */
export async function authenticateListener(
  ctx: AppContext,
  credentials: Credentials,
  reads?: CredentialReads,
): Promise<Caller> {
  const caller = await authenticate(ctx, credentials, reads);
  if (!caller) {
    throw new SocketRefusal(
      CLOSE_CODES.unauthenticated,
      'not_authenticated',
      'Send a session token in the Authorization header or the access_token query parameter.',
    );
  }
  assertMayListen(caller);
  return caller;
}

const HEARTBEAT_WINDOW_MAX_MS = 250;

/**
 * Where a heartbeat's re-check reads: together with other sockets' that fall due within a window
 * (credential-reads.ts) of a tenth of the heartbeat, at most a quarter second. Not longer: the
 * re-checks of one window are decoded and judged in one stretch of the event loop, and a post that
 * lands behind it waits for it (with a one-second window and 10,000 sockets, a stretch of 100-130 ms
 * every second; 2026-11-27).
 */
export function heartbeatReads(ctx: AppContext): CredentialReads {
  const windowMs = Math.min(HEARTBEAT_WINDOW_MAX_MS, realtimeSettings(ctx.config).heartbeatSeconds * 100);
  return gatheredReads(ctx, windowMs);
}

/**
 * Re-checks after an invalidation wait this long to share their statement: the sockets of one
 * emptying all ask in the same turn of the event loop, so nothing more is needed.
 */
const AFTER_INVALIDATION_WINDOW_MS = 0;

export class LiveCredential {
  /** The session cache's generation when the credential was last judged good. */
  private judgedAt: number;
  private judging: Promise<boolean> | null = null;
  /** Set once a judgement refused the credential. */
  private refusal: SocketRefusal | null = null;
  private closed = false;
  private end: ((refusal: SocketRefusal) => void) | null = null;

  private constructor(
    private readonly ctx: AppContext,
    readonly credentials: Credentials,
    readonly caller: Caller,
    judgedAt: number,
  ) {
    this.judgedAt = judgedAt;
  }

  /**
   * Judges the credentials of a new connection and keeps judging them while it is open; `close()`
   * must be called when the connection closes (or never opens).
   */
  static async open(ctx: AppContext, credentials: Credentials): Promise<LiveCredential> {
    // Noted before the reads: a change that lands while they run makes the first frame wait for a
    // fresh judgement.
    const generation = ctx.sessions.generation;
    const caller = await authenticateListener(ctx, credentials);
    const live = new LiveCredential(ctx, credentials, caller, generation);
    openCredentials(ctx).add(live);
    return live;
  }

  /** How the transport closes its connection when a later judgement refuses the credential. */
  onRefusal(end: (refusal: SocketRefusal) => void): void {
    this.end = end;
    if (this.refusal) end(this.refusal);
  }

  /** No change that could affect the credential happened since it was judged. */
  get current(): boolean {
    return (
      this.refusal === null &&
      !this.closed &&
      !this.ctx.sessions.changedSince(this.judgedAt, [this.caller.uid, this.caller.actingManagerUid])
    );
  }

  /** Whether a change of these accounts may have changed this credential. */
  concernedBy(changed: ChangedAccounts): boolean {
    return concerns(changed, this.caller.uid, this.caller.actingManagerUid);
  }

  /**
   * Whether a frame may go now: at once when current, otherwise after a fresh judgement; false once
   * the credential was refused (the connection is being closed) or the connection closed.
   */
  mayDeliver(): Promise<boolean> {
    if (this.current) return Promise.resolve(true);
    if (this.refusal || this.closed) return Promise.resolve(false);
    this.judging ??= this.judge().finally(() => (this.judging = null));
    return this.judging;
  }

  /**
   * The heartbeat's re-check (it also catches expiry, which no write announces): throws the
   * refusal, and leaves ending the socket to the heartbeat, which keeps it while the database is
   * unreachable.
   */
  async recheck(): Promise<void> {
    const generation = this.ctx.sessions.generation;
    await authenticateListener(this.ctx, this.credentials, heartbeatReads(this.ctx));
    if (generation > this.judgedAt) this.judgedAt = generation;
  }

  close(): void {
    this.closed = true;
    openCredentials(this.ctx).delete(this);
  }

  /** Judges again until the judgement is as recent as the last change; ends the connection on a refusal. */
  private async judge(): Promise<boolean> {
    const reads = gatheredReads(this.ctx, AFTER_INVALIDATION_WINDOW_MS);
    while (!this.closed && !this.current) {
      const generation = this.ctx.sessions.generation;
      try {
        await authenticateListener(this.ctx, this.credentials, reads);
      } catch (error) {
        this.refuse(error);
        return false;
      }
      this.judgedAt = generation;
    }
    return this.current;
  }

  private refuse(error: unknown): void {
    const refusal = refusalFor(error);
    if (refusal.closeCode === CLOSE_CODES.internalError) {
      this.ctx.log.error({ err: error, uid: this.caller.uid }, 'live credential re-check failed');
    }
    this.refusal = refusal;
    openCredentials(this.ctx).delete(this);
    this.end?.(refusal);
  }
}

/** Open live credentials per service instance; a change re-judges those it concerns. */
const open = new WeakMap<AppContext, Set<LiveCredential>>();

function openCredentials(ctx: AppContext): Set<LiveCredential> {
  let credentials = open.get(ctx);
  if (!credentials) {
    const created = new Set<LiveCredential>();
    credentials = created;
    open.set(ctx, created);
    // Judged at once rather than at the next frame, so a revoked socket closes without waiting for
    // something to send (and the next frame of one still good does not wait for the read).
    ctx.sessions.onInvalidate((changed) => {
      for (const live of created) if (live.concernedBy(changed)) void live.mayDeliver();
    });
  }
  return credentials;
}
