// The only code that runs the users' Cypher. Takes and returns plain objects.
import neo4j from 'neo4j-driver';
import type { Scope } from '../../platform/auth/scopes.js';
import { AppError } from '../../platform/errors.js';
import { onlyProfileFields } from './profile-fields.js';
import type { Database, Row, Tx } from '../../platform/neo4j/database.js';
import { constraintClash, withFreshId } from '../../platform/neo4j/unique-ids.js';
import { toUserRecord, type UserRecord, type ViewedUser } from './user-record.js';

export interface NewUser {
  user_tag: string;
  display_name: string | null;
  is_managed: boolean;
  is_bot: boolean;
  has_api_access: boolean;
  scopes: Scope[];
  password_hash: string | null;
  email: string | null;
  manager_uid: string | null;
  bot: {
    modalities: string[];
    integrations: string[];
    versions: string[];
    context_origin_id: string | null;
  } | null;
}

const NO_BOT = { modalities: null, integrations: null, versions: null, context_origin_id: null };

/** Creates a user; a uid clash is retried with a new uid, a tag clash is 409 `user_tag_taken`. */
export function createUser(db: Database, user: NewUser): Promise<UserRecord> {
  return createUserWith(db, user, (_tx, created) => Promise.resolve(created));
}

/**
 * createUser, and `andThen` writes more in the same transaction (registration signs the new user
 * in), so the account and what goes with it commit together or not at all. Answers what `andThen`
 * answers; it may run more than once (a retried uid), each time in a fresh transaction.
 */
export async function createUserWith<T>(
  db: Database,
  user: NewUser,
  andThen: (tx: Tx, created: UserRecord) => Promise<T>,
): Promise<T> {
  try {
    return await withFreshId('uid', async (uid) =>
      db.inWrite(async (tx) => {
        const rows = await tx.run('users/create-user', {
          ...user,
          uid,
          bot: user.bot ?? NO_BOT,
          now: new Date().toISOString(),
        });
        return andThen(tx, toUserRecord(rows[0]!.user));
      }),
    );
  } catch (error) {
    if (constraintClash(error) === 'tag_folded')
      throw new AppError('user_tag_taken', 'That user tag is taken.');
    throw error;
  }
}

export async function findUserByUid(db: Database, uid: string): Promise<UserRecord | null> {
  const rows = await db.read('users/find-user-by-uid', { uid });
  return rows[0] ? toUserRecord(rows[0].user) : null;
}

/** A user row of a read that judged whether `viewerUid` manages it (`viewer_manages`). */
function viewedUserOf(row: Row, viewerUid: string | null): ViewedUser {
  return { user: toUserRecord(row.user), viewer: { uid: viewerUid, manages: row.viewer_manages === true } };
}

/** Users by uid as `viewerUid` (null for nobody) looks them up, in one read. */
export async function viewUsersByUid(
  db: Database,
  viewerUid: string | null,
  uids: readonly string[],
): Promise<ViewedUser[]> {
  const rows = await db.read('users/find-users-by-uid', { uids, viewer_uid: viewerUid });
  return rows.map((row) => viewedUserOf(row, viewerUid));
}

export async function findUsersByUid(db: Database, uids: readonly string[]): Promise<UserRecord[]> {
  return (await viewUsersByUid(db, null, uids)).map(({ user }) => user);
}

/** A user by tag (case-insensitive) as `viewerUid` (null for nobody) looks it up. */
export async function viewUserByTag(
  db: Database,
  viewerUid: string | null,
  tag: string,
): Promise<ViewedUser | null> {
  const rows = await db.read('users/find-user-by-tag', {
    tag_folded: tag.toLowerCase(),
    viewer_uid: viewerUid,
  });
  return rows[0] ? viewedUserOf(rows[0], viewerUid) : null;
}

export async function findUserByTag(db: Database, tag: string): Promise<UserRecord | null> {
  return (await viewUserByTag(db, null, tag))?.user ?? null;
}

export interface UserSearch {
  /** Lower-case tag prefix. */
  prefix: string;
  /** Lucene query on the user_display_name index (lucene-query.ts), or null to match no name. */
  lucene: string | null;
  limit: number;
  /** How many display-name hits the full-text index hands over at most, before ordering. */
  candidates: number;
}

/**
 * Tag matches in tag order (the exact tag first), then display-name matches; banned users left out.
 * As `viewerUid` looks them up.
 */
export async function searchUsers(
  db: Database,
  viewerUid: string,
  search: UserSearch,
): Promise<ViewedUser[]> {
  const rows = await db.read('users/search-users', {
    prefix: search.prefix,
    lucene: search.lucene,
    limit: neo4j.int(search.limit),
    candidates: neo4j.int(search.candidates),
    viewer_uid: viewerUid,
  });
  return rows.map((row) => viewedUserOf(row, viewerUid));
}

export async function listContacts(
  db: Database,
  uid: string,
): Promise<{ kind: string; value: string; verified_at: string | null }[]> {
  const rows = await db.read('users/list-contacts', { uid });
  return rows.map((row) => row.contact as { kind: string; value: string; verified_at: string | null });
}

/**
 * A check of a user's fields as a write left them, run in the write's transaction: throwing rolls
 * the write back (a context origin the bot may not see, context-origin.ts).
 */
export type UserCheck = (tx: Tx, written: UserRecord) => Promise<void>;

/** Runs `name` (which answers the written `user`), in one transaction with `check` when there is one. */
async function writeUser(
  db: Database,
  name: string,
  params: Record<string, unknown>,
  check: UserCheck | undefined,
): Promise<UserRecord | null> {
  if (!check) {
    const rows = await db.write(name, params);
    return rows[0] ? toUserRecord(rows[0].user) : null;
  }
  return db.inWrite(async (tx) => {
    const [row] = await tx.run(name, params);
    if (!row) return null;
    const user = toUserRecord(row.user);
    await check(tx, user);
    return user;
  });
}

/** Writes the given stored fields of a user; returns null when the user does not exist. */
export function setUserFields(
  db: Database,
  uid: string,
  changes: Record<string, unknown>,
  check?: UserCheck,
): Promise<UserRecord | null> {
  return writeUser(db, 'users/set-user-fields', { uid, changes }, check);
}

/**
 * Writes the given profile fields of a user (its own edit); null when the user does not exist. A
 * statement of its own, which the caches know changes nothing of theirs (profile-fields.ts).
 */
export function setProfileFields(
  db: Database,
  uid: string,
  changes: Record<string, unknown>,
  check?: UserCheck,
): Promise<UserRecord | null> {
  if (!onlyProfileFields(changes)) throw new Error('setProfileFields writes profile fields only');
  return writeUser(db, 'users/set-profile-fields', { uid, changes }, check);
}

/**
 * Whether message `messageId` may be the context origin of user `uid`: `not_found` when that user
 * may not see it (or it does not exist), `not_root` when it has a reply parent.
 */
export async function judgeContextOrigin(
  tx: Tx,
  uid: string,
  messageId: string,
): Promise<'ok' | 'not_found' | 'not_root'> {
  const [row] = await tx.run('users/judge-context-origin', { viewer_uid: uid, message_id: messageId });
  if (!row) return 'not_found';
  return row.is_root === true ? 'ok' : 'not_root';
}

export async function listManagedUsers(db: Database, managerUid: string): Promise<UserRecord[]> {
  const rows = await db.read('users/list-managed-users', { manager_uid: managerUid });
  return rows.map((row) => toUserRecord(row.user));
}

/**
 * Locks `managerUid` for the rest of the transaction and counts the users it manages (deleted ones
 * left out), so that concurrent creations of managed users count one after another.
 */
export async function lockAndCountManagedUsers(tx: Tx, managerUid: string): Promise<number> {
  const [row] = await tx.run('users/count-managed-users', { manager_uid: managerUid });
  return (row?.managed as number | undefined) ?? 0;
}

const now = () => new Date().toISOString();

/**
 * Writes the given stored fields of a managed user that `managerUid` manages (and that is not
 * deleted); null when it does not manage it.
 */
export function updateManagedUser(
  db: Database,
  managerUid: string,
  uid: string,
  changes: Record<string, unknown>,
  check?: UserCheck,
): Promise<UserRecord | null> {
  // Profile fields only: the caches treat this statement as changing nothing of theirs.
  if (!onlyProfileFields(changes)) throw new Error('updateManagedUser writes profile fields only');
  return writeUser(db, 'users/update-managed-user', { manager_uid: managerUid, uid, changes }, check);
}

/**
 * Deactivates (ending its sessions and pending webhook deliveries) or reactivates a managed user that
 * `managerUid` manages; null when it does not manage it.
 */
export async function setManagedUserActive(
  db: Database,
  managerUid: string,
  uid: string,
  active: boolean,
): Promise<UserRecord | null> {
  const rows = await db.write('users/set-managed-user-active', {
    manager_uid: managerUid,
    uid,
    active,
    now: now(),
  });
  return rows[0] ? toUserRecord(rows[0].user) : null;
}

/** Turns a managed user that `managerUid` manages into a tombstone; false when it does not manage it. */
export async function deleteManagedUser(db: Database, managerUid: string, uid: string): Promise<boolean> {
  const rows = await db.write('users/delete-managed-user', { manager_uid: managerUid, uid, now: now() });
  return rows.length > 0;
}

export interface ManagerRecord {
  uid: string;
  user_tag: string;
  display_name: string | null;
  since: string;
}

export interface PendingManagerRecord {
  uid: string;
  user_tag: string;
  display_name: string | null;
  invited_by: { uid: string; user_tag: string };
  invited_at: string;
}

export interface ManagersRecord {
  managers: ManagerRecord[];
  /** Users invited to manage it who have not accepted (no managers yet). */
  invitations: PendingManagerRecord[];
}

export interface ManagersState {
  /** Whether the user named as the change's target manages the managed user now. */
  target_manages: boolean;
  /** Whether that user has a pending invitation to manage it. */
  target_invited: boolean;
  manager_count: number;
}

/**
 * Locks a managed user's managers for this transaction and reads them; null when `callerUid` does
 * not manage it (or it is deleted).
 */
export async function lockManagers(
  tx: Tx,
  callerUid: string,
  uid: string,
  targetUid: string,
): Promise<ManagersState | null> {
  const [row] = await tx.run('users/lock-managers', {
    caller_uid: callerUid,
    uid,
    target_uid: targetUid,
    now: now(),
  });
  return row
    ? {
        target_manages: row.target_manages === true,
        target_invited: row.target_invited === true,
        manager_count: row.manager_count as number,
      }
    : null;
}

/**
 * Invites a regular user to manage `uid` (nothing changes for a current manager or one already
 * invited); false when that user is unknown or itself managed.
 */
export async function inviteManager(
  tx: Tx,
  callerUid: string,
  uid: string,
  inviteeUid: string,
): Promise<boolean> {
  const rows = await tx.run('users/invite-manager', {
    caller_uid: callerUid,
    uid,
    new_manager_uid: inviteeUid,
    now: now(),
  });
  return rows.length > 0;
}

/** Withdraws a pending invitation to manage `uid`; false when there was none. */
export async function withdrawInvitation(tx: Tx, uid: string, inviteeUid: string): Promise<boolean> {
  const [row] = await tx.run('users/withdraw-invitation', { uid, invitee_uid: inviteeUid });
  return (row?.withdrawn as number | undefined) === 1;
}

export async function removeManager(tx: Tx, uid: string, managerUid: string): Promise<boolean> {
  const [row] = await tx.run('users/remove-manager', { uid, manager_uid: managerUid });
  return (row?.removed as number | undefined) === 1;
}

/** The managers of a managed user, oldest first, and its pending invitations; null when it is unknown or deleted. */
export async function listManagers(source: Database | Tx, uid: string): Promise<ManagersRecord | null> {
  const params = { uid };
  const [row] =
    'write' in source
      ? await source.read('users/list-managers', params)
      : await source.run('users/list-managers', params);
  return row
    ? {
        managers: row.managers as ManagerRecord[],
        invitations: row.invitations as PendingManagerRecord[],
      }
    : null;
}

export interface InvitationRecord {
  user: UserRecord;
  invited_by: { uid: string; user_tag: string };
  invited_at: string;
}

/** The user's pending invitations to manage someone, oldest first. */
export async function listInvitations(db: Database, uid: string): Promise<InvitationRecord[]> {
  const rows = await db.read('users/list-invitations', { uid });
  return rows.map((row) => ({
    user: toUserRecord(row.user),
    invited_by: row.invited_by as { uid: string; user_tag: string },
    invited_at: row.invited_at as string,
  }));
}

/**
 * Turns the user's pending invitation to manage `uid` into a manager link; false when there is no
 * such invitation, the managed user is deleted, or its inviter no longer manages it.
 */
export async function acceptInvitation(tx: Tx, callerUid: string, uid: string): Promise<boolean> {
  const rows = await tx.run('users/accept-invitation', { caller_uid: callerUid, uid, now: now() });
  return rows.length > 0;
}

/** Drops the user's pending invitation to manage `uid`; false when there is none. */
export async function declineInvitation(db: Database, callerUid: string, uid: string): Promise<boolean> {
  const rows = await db.write('users/decline-invitation', { caller_uid: callerUid, uid });
  return rows.length > 0;
}
