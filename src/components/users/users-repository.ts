// The only code that runs the users' Cypher. Takes and returns plain objects.
import neo4j from 'neo4j-driver';
import type { Scope } from '../../platform/auth/scopes.js';
import { AppError } from '../../platform/errors.js';
import type { Database, Tx } from '../../platform/neo4j/database.js';
import { constraintClash, withFreshId } from '../../platform/neo4j/unique-ids.js';
import { toUserRecord, type UserRecord } from './user-record.js';

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

export async function findUsersByUid(db: Database, uids: readonly string[]): Promise<UserRecord[]> {
  const rows = await db.read('users/find-users-by-uid', { uids });
  return rows.map((row) => toUserRecord(row.user));
}

export async function findUserByTag(db: Database, tag: string): Promise<UserRecord | null> {
  const rows = await db.read('users/find-user-by-tag', { tag_folded: tag.toLowerCase() });
  return rows[0] ? toUserRecord(rows[0].user) : null;
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

/** Tag matches in tag order (the exact tag first), then display-name matches; banned users left out. */
export async function searchUsers(db: Database, search: UserSearch): Promise<UserRecord[]> {
  const rows = await db.read('users/search-users', {
    prefix: search.prefix,
    lucene: search.lucene,
    limit: neo4j.int(search.limit),
    candidates: neo4j.int(search.candidates),
  });
  return rows.map((row) => toUserRecord(row.user));
}

export async function listContacts(
  db: Database,
  uid: string,
): Promise<{ kind: string; value: string; verified_at: string | null }[]> {
  const rows = await db.read('users/list-contacts', { uid });
  return rows.map((row) => row.contact as { kind: string; value: string; verified_at: string | null });
}

/** Writes the given stored fields of a user; returns null when the user does not exist. */
export async function setUserFields(
  db: Database,
  uid: string,
  changes: Record<string, unknown>,
): Promise<UserRecord | null> {
  const rows = await db.write('users/set-user-fields', { uid, changes });
  return rows[0] ? toUserRecord(rows[0].user) : null;
}

export async function listManagedUsers(db: Database, managerUid: string): Promise<UserRecord[]> {
  const rows = await db.read('users/list-managed-users', { manager_uid: managerUid });
  return rows.map((row) => toUserRecord(row.user));
}
