// Minting sessions and resolving credentials into a caller: the one place for session TTL,
// permission freezing (requested ∩ key cap ∩ grant), the checks every credential passes, who may
// sign in at all, and how often a credential's last use is written.
import { presentedCredential, type Caller, type Credentials } from '../../platform/auth/caller.js';
import { intersectScopes, type Scope } from '../../platform/auth/scopes.js';
import {
  formatSessionToken,
  matchesHash,
  newSecret,
  newSessionId,
  parseApiKey,
  parseSessionToken,
  sha256Hex,
} from '../../platform/auth/secrets.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { Tx } from '../../platform/neo4j/database.js';
import * as repo from './identity-repository.js';
import { directReads, recordUse, type CredentialReads } from './credential-reads.js';
import type { TokenResponse } from './identity.schemas.js';

export interface MintRequest {
  uid: string;
  grant: Scope[];
  /** What the client asked for; null asks for everything the grant and key allow. */
  requested: Scope[] | null;
  keyId: string | null;
  keyCap: Scope[] | null;
  deviceId: string | null;
  actingManagerUid: string | null;
  /** How the session is made, kept on its record for the session list. */
  method: repo.SessionMethod;
  /** For a delegated session: the manager's credential it answers for, and when that ends. */
  delegatedFrom?: Delegation;
}

export interface Delegation {
  sessionId: string | null;
  keyId: string | null;
  /** The parent's expiry (null: none): the delegated session never outlives it. */
  expiresAt: string | null;
}

export interface MintedSession extends TokenResponse {
  session_id: string;
}

/** The ways a person signs in to a session of their own (mintSignInSession). */
export type SignInMethod = Extract<
  repo.SessionMethod,
  'password' | 'registration' | 'password_reset' | 'email_code'
>;

/**
 * A session of the user's own with everything their grant allows: what signing in by password or
 * by an emailed code, registering, changing or resetting a password gives. Given `tx`, the session
 * is written in that transaction, so it commits (or not) with the change that signs the user in.
 */
export function mintSignInSession(
  ctx: AppContext,
  user: { uid: string; scopes: Scope[] },
  how: { method: SignInMethod; deviceId?: string | null },
  tx?: Tx,
): Promise<MintedSession> {
  assertMaySignIn(user);
  return mintSession(
    ctx,
    {
      uid: user.uid,
      grant: user.scopes,
      requested: null,
      keyId: null,
      keyCap: null,
      deviceId: how.deviceId ?? null,
      actingManagerUid: null,
      method: how.method,
    },
    tx,
  );
}

/**
 * A banned account (an administrator took every scope away) signs in no more: a session that can do
 * nothing would only look like a working sign-in. An account an administrator restricted to some
 * scopes still signs in, with those. Callers check the secret first, so only someone who knows it
 * learns of the ban.
 */
export function assertMaySignIn(user: { scopes: readonly Scope[] }): void {
  if (user.scopes.length === 0) {
    throw new AppError('account_disabled', 'An administrator has disabled this account.');
  }
}

export async function mintSession(ctx: AppContext, request: MintRequest, tx?: Tx): Promise<MintedSession> {
  const sessionId = newSessionId();
  const secret = newSecret();
  const { expiresIn, expiresAt } = sessionExpiry(ctx, request.delegatedFrom?.expiresAt ?? null);
  await repo.createSession(tx ?? ctx.db, {
    session_id: sessionId,
    secret_hash: sha256Hex(secret),
    uid: request.uid,
    permissions: intersectScopes(request.requested, request.keyCap, request.grant),
    requested: request.requested,
    expires_at: expiresAt,
    device_id: request.deviceId,
    key_id: request.keyId,
    acting_manager_uid: request.actingManagerUid,
    method: request.method,
    parent_session_id: request.delegatedFrom?.sessionId ?? null,
    parent_key_id: request.delegatedFrom?.keyId ?? null,
  });
  // Its first request may reach another instance, on a Neo4j cluster member that lags this write.
  await ctx.db.causalBookmarks?.adopt({ sessionId });
  return {
    session_id: sessionId,
    access_token: formatSessionToken(sessionId, secret),
    token_type: 'Bearer',
    expires_in: expiresIn,
    expires_at: expiresAt,
  };
}

/** A session's lifetime from now, never past `atMost` (a delegated session's parent's expiry). */
export function sessionExpiry(
  ctx: AppContext,
  atMost: string | null,
): { expiresIn: number; expiresAt: string } {
  // One clock reading: read twice, a millisecond between them made a full lifetime one second short.
  const now = Date.now();
  const full = now + ctx.config.sessionTtlSeconds * 1000;
  const end = atMost === null ? full : Math.min(full, Date.parse(atMost));
  return {
    expiresIn: Math.max(0, Math.floor((end - now) / 1000)),
    expiresAt: new Date(end).toISOString(),
  };
}

/**
 * What the manager holds now through the credential that minted a delegated session (security
 * finding #3): the manager's live grant, narrowed by that session's frozen permissions and key, or
 * by that key's cap. Invalid once that credential ended (logout, expiry, revocation), once the
 * manager stopped managing the user, and for a delegated session that names no parent.
 */
export function managerHolds(found: repo.SessionState): Scope[] {
  const { parent, manager } = found;
  if (!found.managerLink || !manager || !parent) throw invalidSession();
  if (parent.revoked_at !== null || isPast(parent.expires_at)) throw invalidSession();
  if (parent.key && (parent.key.revoked_at !== null || isPast(parent.key.expires_at))) throw invalidSession();
  if (parent.kind === 'key' && !manager.has_api_access) throw invalidSession();
  return intersectScopes(
    manager.scopes,
    parent.permissions,
    parent.scopes_cap,
    parent.key?.scopes_cap ?? null,
  );
}

/** A credential's restriction beyond the account grant; null when it has none. */
export function credentialCeiling(requested: Scope[] | null, keyCap: Scope[] | null): Scope[] | null {
  return requested === null && keyCap === null ? null : intersectScopes(requested, keyCap);
}

const invalidSession = () => new AppError('invalid_session', 'The session is invalid or has expired.');
const invalidKey = () => new AppError('invalid_api_key', 'The API key is invalid, revoked or expired.');

function isPast(timestamp: string | null): boolean {
  return timestamp !== null && Date.parse(timestamp) <= Date.now();
}

/**
 * Whether a session may still authenticate: not revoked nor expired, its key (if minted from one)
 * neither, and, for a delegated session, its manager's credential alive and the link still there.
 * Answers what the manager holds for a delegated session (null otherwise); throws invalid_session.
 * The session list judges its entries with this too, so it never shows a session that would fail.
 */
export function assertLiveSession(state: repo.SessionState): Scope[] | null {
  const { session, key } = state;
  if (session.revoked_at !== null || isPast(session.expires_at)) throw invalidSession();
  if (key && (key.revoked_at !== null || isPast(key.expires_at))) throw invalidSession();
  return session.acting_manager_uid !== null ? managerHolds(state) : null;
}

/** Last-use times are written at most once per this interval per credential, never per request. */
const TOUCH_INTERVAL_MS = 60_000;

function dueForTouch(lastUsedAt: string | null): boolean {
  return Date.now() - (lastUsedAt === null ? 0 : Date.parse(lastUsedAt)) > TOUCH_INTERVAL_MS;
}

/**
 * Notes that a request presented the session. The record may be the session cache's, so it takes
 * the new time at once and the requests that follow on this instance do not write again; the write
 * changes no credential (credential-writes.ts), or every touch would drop the user's records on
 * every instance.
 */
function noteSessionUse(ctx: AppContext, session: repo.SessionRecord): void {
  if (!dueForTouch(session.last_used_at)) return;
  session.last_used_at = new Date().toISOString();
  recordUse(ctx, 'session', session.id);
}

/**
 * Resolves the credentials of a request: Bearer wins over x-api-key, which wins over the cookie, and
 * a Bearer token that is an API key counts as that key (presentedCredential). No credentials give
 * null; a credential that is presented but invalid is a 401. `reads` is where the records come from
 * (socket re-checks gather theirs, credential-reads.ts).
 */
export async function authenticate(
  ctx: AppContext,
  credentials: Credentials,
  reads: CredentialReads = directReads(ctx),
): Promise<Caller | null> {
  const presented = presentedCredential(credentials);
  if (!presented) return null;
  return presented.kind === 'api_key'
    ? callerFromApiKey(ctx, presented.key, reads)
    : callerFromSessionToken(ctx, presented.token, reads);
}

export async function callerFromSessionToken(
  ctx: AppContext,
  token: string,
  reads: CredentialReads = directReads(ctx),
): Promise<Caller> {
  const parsed = parseSessionToken(token);
  if (!parsed) throw invalidSession();
  const found = await ctx.sessions.lookup(parsed.id, () => reads.session(parsed.id));
  if (!found || !matchesHash(parsed.secret, found.session.secret_hash)) throw invalidSession();
  const { session, user, key } = found;
  // A deactivated managed user's sessions (its own and its managers' delegated ones) fail at once.
  if (!user.active) throw invalidSession();
  // Acting for someone: never more than the manager holds now (a capped ceiling, so a key minted
  // through it is capped too).
  const holds = assertLiveSession(found);
  noteSessionUse(ctx, session);
  const ceiling = credentialCeiling(session.requested, key?.scopes_cap ?? null);
  return {
    uid: user.uid,
    userTag: user.user_tag,
    isManaged: user.is_managed,
    // The grant is read live, so taking a scope away takes effect at once.
    permissions: intersectScopes(session.permissions, user.scopes, holds),
    ceiling: holds === null ? ceiling : intersectScopes(ceiling, holds),
    via: 'session',
    sessionId: session.id,
    sessionToken: token,
    keyId: key?.key_id ?? null,
    actingManagerUid: session.acting_manager_uid,
  };
}

export interface VerifiedKey {
  keyId: string;
  keyCap: Scope[] | null;
  user: repo.PrincipalRecord;
}

/** Checks an API key; `onWrongSecret` lets the token endpoint count guesses against a key id. */
export async function verifyApiKey(
  ctx: AppContext,
  apiKey: string,
  onWrongSecret?: (keyId: string) => Promise<void>,
  reads: CredentialReads = directReads(ctx),
): Promise<VerifiedKey> {
  const parsed = parseApiKey(apiKey);
  if (!parsed) throw invalidKey();
  const found = await reads.apiKey(parsed.keyId);
  if (!found) throw invalidKey();
  if (!matchesHash(apiKey, found.key.hash)) {
    await onWrongSecret?.(parsed.keyId);
    throw invalidKey();
  }
  if (found.key.revoked_at !== null || isPast(found.key.expires_at)) throw invalidKey();
  // A deactivated managed user's keys fail like revoked ones, and work again once it is reactivated.
  if (!found.user.active) throw invalidKey();
  if (!found.user.has_api_access) {
    throw new AppError(
      'api_access_required',
      'This account does not have API access. An administrator grants it with PATCH /v1/admin/users/{uid} ' +
        '{"has_api_access": true} or on the server `npm run admin -- api-access <user_tag>`; a self-hosted ' +
        'instance can give it to every new account with SKEIN_DEFAULT_API_ACCESS=true. Until then, a bot’s ' +
        'manager can use POST /v1/managed/auth/delegate for a session token.',
    );
  }
  if (dueForTouch(found.key.last_used_at)) recordUse(ctx, 'key', parsed.keyId);
  return { keyId: parsed.keyId, keyCap: found.key.scopes_cap, user: found.user };
}

async function callerFromApiKey(ctx: AppContext, apiKey: string, reads: CredentialReads): Promise<Caller> {
  const { keyId, keyCap, user } = await verifyApiKey(ctx, apiKey, undefined, reads);
  return {
    uid: user.uid,
    userTag: user.user_tag,
    isManaged: user.is_managed,
    permissions: intersectScopes(user.scopes, keyCap),
    ceiling: keyCap,
    via: 'api_key',
    sessionId: null,
    sessionToken: null,
    keyId,
    actingManagerUid: null,
  };
}
