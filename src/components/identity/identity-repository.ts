// The only code that runs the identity Cypher: sessions, API keys, passwords, manager links.
import type { Scope } from '../../platform/auth/scopes.js';
import type { Database, Row, Tx } from '../../platform/neo4j/database.js';

/** A database, or the transaction a use case is already in (so several writes commit together). */
export type Source = Database | Tx;

function write(source: Source, name: string, params: Record<string, unknown>): Promise<Row[]> {
  return 'write' in source ? source.write(name, params) : source.run(name, params);
}

export interface PrincipalRecord {
  uid: string;
  user_tag: string;
  is_managed: boolean;
  scopes: Scope[];
  has_api_access: boolean;
  /** False while a manager has this managed user deactivated, or deleted it: no credential works. */
  active: boolean;
}

export interface SessionRecord {
  id: string;
  secret_hash: string;
  permissions: Scope[];
  requested: Scope[] | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  device_id: string | null;
  acting_manager_uid: string | null;
  /** When a request last presented it, to within a minute; null for sessions from before it was kept. */
  last_used_at: string | null;
}

/** How a session was made, as its record says (GET /v1/auth/sessions). */
export const SESSION_METHODS = [
  'password',
  'registration',
  'password_reset',
  'email_code',
  'api_key',
  'delegation',
] as const;
export type SessionMethod = (typeof SESSION_METHODS)[number];

export interface KeyState {
  key_id: string;
  scopes_cap: Scope[] | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface KeyRecord extends KeyState {
  hash: string;
  last_used_at: string | null;
}

export interface StoredKey extends KeyState {
  label: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

const now = () => new Date().toISOString();

/** The manager's credential a delegated session was minted through. */
export interface DelegationParent {
  kind: 'session' | 'key';
  /** The parent session's frozen permissions (null for a key). */
  permissions: Scope[] | null;
  /** The parent key's cap (null for a session, or an uncapped key). */
  scopes_cap: Scope[] | null;
  expires_at: string | null;
  revoked_at: string | null;
  /** The key the parent session was minted from, if any. */
  key: KeyState | null;
}

/** What decides whether a session still authenticates (sessions.ts, assertLiveSession). */
export interface SessionState {
  session: SessionRecord;
  key: KeyState | null;
  managerLink: boolean;
  /** For a delegated session: the manager's live grant (null when the link is gone). */
  manager: { scopes: Scope[]; has_api_access: boolean } | null;
  parent: DelegationParent | null;
}

export interface FoundSession extends SessionState {
  user: PrincipalRecord;
}

/** A session of the user's list: its state, and how it was made when the record says so. */
export interface ListedSession extends SessionState {
  method: SessionMethod | null;
}

/**
 * The credential reads (find-sessions, list-sessions, find-api-keys) return their times as epoch
 * milliseconds: decoding DateTime values was most of the driver's work for the 333 sessions a second
 * that 10,000 sockets' heartbeats re-check (about 40% of that read's CPU in Node, 2026-11-27).
 * Callers get the ISO 8601 strings every other read gives.
 */
function withIsoTimes<T>(record: unknown, fields: readonly string[]): T {
  if (record === null || record === undefined) return null as T;
  // The record is the read's own plain object: changed in place.
  const row = record as Row;
  for (const field of fields) {
    const millis = row[field];
    row[field] = typeof millis === 'number' ? new Date(millis).toISOString() : null;
  }
  return row as T;
}

const SESSION_TIMES = ['created_at', 'expires_at', 'revoked_at', 'last_used_at'] as const;
const KEY_TIMES = ['expires_at', 'revoked_at'] as const;
const KEY_RECORD_TIMES = [...KEY_TIMES, 'last_used_at'] as const;

function sessionState(row: Row): SessionState {
  const parent = withIsoTimes<DelegationParent | null>(row.parent, KEY_TIMES);
  if (parent) parent.key = withIsoTimes<KeyState | null>(parent.key, KEY_TIMES);
  return {
    session: withIsoTimes<SessionRecord>(row.session, SESSION_TIMES),
    key: withIsoTimes<KeyState | null>(row.key, KEY_TIMES),
    managerLink: row.manager_link === true,
    manager: (row.manager as SessionState['manager'] | null) ?? null,
    parent,
  };
}

export async function findSession(db: Database, sessionId: string): Promise<FoundSession | null> {
  return (await findSessions(db, [sessionId])).get(sessionId) ?? null;
}

/** The sessions of these ids that exist, by id. */
export async function findSessions(
  db: Database,
  sessionIds: readonly string[],
): Promise<Map<string, FoundSession>> {
  const rows = await db.read('identity/find-sessions', { session_ids: sessionIds });
  const found = rows.map((row): FoundSession => ({
    ...sessionState(row),
    user: row.user as PrincipalRecord,
  }));
  return new Map(found.map((f) => [f.session.id, f]));
}

/** The user's sessions not revoked nor expired, newest first (delegated and key state to judge). */
export async function listSessions(db: Database, uid: string): Promise<ListedSession[]> {
  const rows = await db.read('identity/list-sessions', { uid, now: now() });
  return rows.map((row) => ({ ...sessionState(row), method: (row.method as SessionMethod | null) ?? null }));
}

/** Records that requests presented these sessions (callers send each at most once a minute). */
export async function touchSessions(db: Database, sessionIds: readonly string[]): Promise<void> {
  await db.write('identity/touch-sessions', { session_ids: sessionIds, now: now() });
}

/** Revokes one of the user's sessions; false when the user has no session of that id. */
export async function revokeOwnSession(db: Database, uid: string, sessionId: string): Promise<boolean> {
  const rows = await db.write('identity/revoke-own-session', { uid, session_id: sessionId, now: now() });
  return rows.length > 0;
}

/** Revokes every live session of the user but `keepSessionId`; answers the ids it revoked. */
export async function revokeOtherSessions(
  db: Database,
  uid: string,
  keepSessionId: string | null,
): Promise<string[]> {
  const rows = await db.write('identity/revoke-other-sessions', {
    uid,
    keep_session_id: keepSessionId,
    now: now(),
  });
  return rows.map((row) => row.session_id as string);
}

export interface NewSession {
  session_id: string;
  secret_hash: string;
  uid: string;
  permissions: Scope[];
  requested: Scope[] | null;
  expires_at: string;
  device_id: string | null;
  key_id: string | null;
  acting_manager_uid: string | null;
  method: SessionMethod;
  /** A delegated session's parent: the manager's session, or the manager's key. */
  parent_session_id: string | null;
  parent_key_id: string | null;
}

export async function createSession(source: Source, session: NewSession): Promise<void> {
  await write(source, 'identity/create-session', { ...session, now: now() });
}

export async function refreshSession(
  db: Database,
  uid: string,
  sessionId: string,
  expiresAt: string,
  repairedPermissions: Scope[],
): Promise<{ permissions: Scope[]; expires_at: string } | null> {
  const rows = await db.write('identity/refresh-session', {
    uid,
    session_id: sessionId,
    expires_at: expiresAt,
    repaired_permissions: repairedPermissions,
  });
  return (rows[0] as { permissions: Scope[]; expires_at: string } | undefined) ?? null;
}

/** Revokes the session of the user `uid` (the owner names whose credentials change). */
export async function revokeSession(db: Database, uid: string, sessionId: string): Promise<void> {
  await db.write('identity/revoke-session', { uid, session_id: sessionId, now: now() });
}

/** The accounts these accounts manage, directly or through accounts they manage. */
export async function findManagedUids(db: Database, uids: readonly string[]): Promise<string[]> {
  const rows = await db.read('identity/find-managed-uids', { uids });
  return (rows[0]?.uids as string[] | undefined) ?? [];
}

export async function revokeUserSessions(
  source: Source,
  uid: string,
  keepSessionId: string | null,
): Promise<void> {
  await write(source, 'identity/revoke-user-sessions', { uid, keep_session_id: keepSessionId, now: now() });
}

export interface FoundKey {
  key: KeyRecord;
  user: PrincipalRecord;
}

export async function findApiKey(db: Database, keyId: string): Promise<FoundKey | null> {
  return (await findApiKeys(db, [keyId])).get(keyId) ?? null;
}

/** The keys of these ids that exist, by id. */
export async function findApiKeys(db: Database, keyIds: readonly string[]): Promise<Map<string, FoundKey>> {
  const rows = await db.read('identity/find-api-keys', { key_ids: keyIds });
  return new Map(
    rows.map((row) => {
      const key = withIsoTimes<KeyRecord>(row.key, KEY_RECORD_TIMES);
      return [key.key_id, { key, user: row.user as PrincipalRecord }];
    }),
  );
}

/** Records that requests presented these keys (callers send each at most once a minute). */
export async function touchApiKeys(db: Database, keyIds: readonly string[]): Promise<void> {
  await db.write('identity/touch-api-keys', { key_ids: keyIds, now: now() });
}

/**
 * Creates a key of the user. `parent_key_id` names the user's key it is made with (it dies with that
 * key); false, and no key, when the user has no key of that id.
 */
export async function createApiKey(
  db: Database,
  key: {
    uid: string;
    key_id: string;
    hash: string;
    prefix: string;
    label: string | null;
    scopes_cap: Scope[] | null;
    expires_at: string | null;
    parent_key_id: string | null;
  },
): Promise<boolean> {
  const rows = await db.write('identity/create-api-key', { ...key, now: now() });
  return rows.length > 0;
}

export async function listApiKeys(db: Database, uid: string): Promise<StoredKey[]> {
  const rows = await db.read('identity/list-api-keys', { uid });
  return rows.map((row) => row.key as StoredKey);
}

/** Revokes one of the user's keys; false when the user has no such key. */
export async function revokeApiKey(db: Database, uid: string, keyId: string): Promise<boolean> {
  const rows = await db.write('identity/revoke-api-key', { uid, key_id: keyId, now: now() });
  return rows.length > 0;
}

export async function findLoginCandidates(
  db: Database,
  by: { tag: string | null; email: string | null },
): Promise<{ uid: string; password_hash: string }[]> {
  const rows = await db.read('identity/find-login-candidates', {
    tag_folded: by.tag?.toLowerCase() ?? null,
    email: by.email?.toLowerCase() ?? null,
  });
  return rows as { uid: string; password_hash: string }[];
}

export async function findPasswordHash(
  db: Database,
  uid: string,
): Promise<{ password_hash: string | null; is_managed: boolean } | null> {
  const rows = await db.read('identity/find-password-hash', { uid });
  return (rows[0] as { password_hash: string | null; is_managed: boolean } | undefined) ?? null;
}

/** Sets the user's password hash; answers the user's grant, or null when there is no such user. */
export async function setPasswordHash(
  source: Source,
  uid: string,
  passwordHash: string,
): Promise<{ scopes: Scope[] } | null> {
  const rows = await write(source, 'identity/set-password', { uid, password_hash: passwordHash });
  return (rows[0] as { scopes: Scope[] } | undefined) ?? null;
}

/** The subject when `managerUid` manages it, else null. */
export async function findManagedSubject(
  db: Database,
  managerUid: string,
  subjectUid: string,
): Promise<PrincipalRecord | null> {
  const rows = await db.read('identity/find-managed-link', {
    manager_uid: managerUid,
    subject_uid: subjectUid,
  });
  return (rows[0]?.subject as PrincipalRecord | undefined) ?? null;
}
