// The only code that runs the contacts Cypher: challenges, verified contacts, and the password
// change of a reset (which reuses the identity queries inside its own transaction).
import type { Scope } from '../../platform/auth/scopes.js';
import type { Database, Tx } from '../../platform/neo4j/database.js';
import type { StoredChallenge } from './challenge-codes.js';
import type { ContactKind } from './contacts.schemas.js';

/** A challenge as it is first saved: no wrong tries yet, and the slot that keeps one per target. */
export type NewChallenge = Omit<StoredChallenge, 'failed_tries'> & { slot: string };

export interface ContactRecord {
  kind: ContactKind;
  value: string;
  verified_at: string;
}

const now = () => new Date().toISOString();

/** Saves a challenge into its slot, replacing what was there; false when the uid matches no user. */
export async function saveChallenge(db: Database, challenge: NewChallenge): Promise<boolean> {
  const rows = await db.write('contacts/save-challenge', { ...challenge, now: now() });
  return rows.length > 0;
}

export async function findChallenge(db: Database, slot: string): Promise<StoredChallenge | null> {
  const rows = await db.read('contacts/find-challenge', { slot });
  return (rows[0]?.challenge as StoredChallenge | undefined) ?? null;
}

export async function deleteChallenge(db: Database, id: string): Promise<void> {
  await db.write('contacts/delete-challenge', { id });
}

/** What may be written while a challenge is locked; each is one statement of the same transaction. */
export interface ChallengeWrites {
  /** Counts a wrong code; `dead` when that try used up the last one (the challenge is then gone). */
  countWrongTry(challengeId: string, maxTries: number): Promise<{ dead: boolean }>;
  /** Uses the challenge up and marks an email or phone verified (see verify-contact.cypher). */
  verifyContact(input: {
    challenge_id: string;
    uid: string;
    kind: 'email' | 'phone';
    value: string;
    grant: Scope[];
  }): Promise<{ contact: ContactRecord; granted: boolean; refreshed: number }>;
  /** Uses the challenge up and makes the URL the user's endpoint contact with this secret. */
  setEndpoint(input: {
    challenge_id: string;
    uid: string;
    url: string;
    secret: string;
  }): Promise<ContactRecord>;
  /** Uses the challenge up, sets the password hash and ends every session of the user. */
  resetPassword(input: { challenge_id: string; uid: string; password_hash: string }): Promise<void>;
  /** Uses the challenge up, and nothing else (a sign-in code: the session is minted after). */
  useChallenge(challengeId: string): Promise<void>;
}

/**
 * Runs `work` in one write transaction that first locks the challenge in `slot` (null when there is
 * none), so checking a code and acting on it cannot interleave with another check of the same code.
 * Whatever `work` returns is committed; a throw rolls everything back.
 */
export async function withLockedChallenge<T>(
  db: Database,
  slot: string,
  work: (challenge: StoredChallenge | null, writes: ChallengeWrites) => Promise<T>,
): Promise<T> {
  return db.inWrite(async (tx) => {
    const rows = await tx.run('contacts/lock-challenge', { slot });
    const challenge = (rows[0]?.challenge as StoredChallenge | undefined) ?? null;
    return work(challenge, challengeWrites(tx));
  });
}

function challengeWrites(tx: Tx): ChallengeWrites {
  return {
    countWrongTry: async (challengeId, maxTries) => {
      const rows = await tx.run('contacts/count-wrong-try', { id: challengeId, max_tries: maxTries });
      return { dead: rows[0]?.dead === true };
    },
    verifyContact: async (input) => {
      const rows = await tx.run('contacts/verify-contact', { ...input, now: now() });
      const row = rows[0];
      if (!row) throw new Error('verify-contact matched no challenge or user');
      return {
        contact: row.contact as ContactRecord,
        granted: row.granted === true,
        refreshed: row.refreshed as number,
      };
    },
    setEndpoint: async (input) => {
      const rows = await tx.run('contacts/set-endpoint', { ...input, now: now() });
      const row = rows[0];
      if (!row) throw new Error('set-endpoint matched no challenge or user');
      return row.contact as ContactRecord;
    },
    resetPassword: async (input) => {
      await tx.run('contacts/use-challenge', { challenge_id: input.challenge_id });
      await tx.run('identity/set-password', { uid: input.uid, password_hash: input.password_hash });
      await tx.run('identity/revoke-user-sessions', { uid: input.uid, keep_session_id: null, now: now() });
    },
    useChallenge: async (challengeId) => {
      await tx.run('contacts/use-challenge', { challenge_id: challengeId });
    },
  };
}

/** An account an emailed code may be for (password reset, sign-in by email). */
export interface ResetCandidate {
  uid: string;
  /** Latest verified first. */
  verified_emails: string[];
}

export async function findResetCandidates(
  db: Database,
  by: { tag_folded: string | null; email: string | null },
): Promise<ResetCandidate[]> {
  const rows = await db.read('contacts/find-reset-candidates', by);
  return rows as unknown as ResetCandidate[];
}
