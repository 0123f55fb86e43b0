// The only code that runs the reactions' Cypher (cypher/reactions/). Takes and returns plain
// objects; every query applies the visibility rule, and the reaction-shown rule, for the viewer.
import { isEntityNotFound, type Database, type Tx } from '../../platform/neo4j/database.js';
import type { CountedReaction } from '../messages/message-output.js';
import { toUserRecord, type ViewedUser } from '../users/user-record.js';
import type { ReactionRoom } from './reaction-rules.js';

/** A message whose reactions are about to change, locked, with who is told of the change. */
export interface ReactionTarget {
  id: string;
  author_uid: string;
  /** The adder of the caller's BCC entry on it; null without one, and for its author. */
  bcc_added_by: string | null;
}

/**
 * Locks a message the viewer can see for a reaction change (the rest of the transaction then runs
 * alone on its reactions); null when it is missing, invisible, or deleted while waiting for the lock.
 */
export async function lockReactions(tx: Tx, viewerUid: string, id: string): Promise<ReactionTarget | null> {
  try {
    const [row] = await tx.run('reactions/lock-message', {
      viewer_uid: viewerUid,
      id,
      now: new Date().toISOString(),
    });
    return row ? (row as unknown as ReactionTarget) : null;
  } catch (error) {
    if (isEntityNotFound(error)) return null;
    throw error;
  }
}

/** Under the lock: the caller's reactions on the message and the different ones it is shown there. */
export async function readReactionRoom(tx: Tx, viewerUid: string, id: string): Promise<ReactionRoom> {
  const [row] = await tx.run('reactions/read-state', { viewer_uid: viewerUid, id });
  return {
    mine: (row?.mine as string[] | undefined) ?? [],
    shown: (row?.shown as string[] | undefined) ?? [],
  };
}

export async function addReactionEdge(
  tx: Tx,
  viewerUid: string,
  id: string,
  reaction: string,
): Promise<void> {
  await tx.run('reactions/add-reaction', {
    viewer_uid: viewerUid,
    id,
    reaction,
    now: new Date().toISOString(),
  });
}

/** False when the caller held no such reaction. */
export async function removeReactionEdge(
  tx: Tx,
  viewerUid: string,
  id: string,
  reaction: string,
): Promise<boolean> {
  const [row] = await tx.run('reactions/remove-reaction', { viewer_uid: viewerUid, id, reaction });
  return ((row?.removed as number | undefined) ?? 0) > 0;
}

export interface CountedReactors extends CountedReaction {
  /**
   * One page of reactors, earliest first, with one more than asked when more follow, each with
   * whether the viewer manages it (judged in the same statement).
   */
  users: ViewedUser[];
}

/** Who reacted, per reaction (or one), as the viewer is shown it; null when the message is not visible. */
export async function listReactors(
  db: Database,
  viewerUid: string,
  id: string,
  options: { reaction: string | null; skip: number; limit: number },
): Promise<CountedReactors[] | null> {
  const [row] = await db.read('reactions/list-reactors', { viewer_uid: viewerUid, id, ...options });
  if (!row) return null;
  const reactions = row.reactions as (CountedReaction & { users: Record<string, unknown>[] })[];
  return reactions.map((reaction) => ({
    ...reaction,
    users: reaction.users.map((user) => ({
      user: toUserRecord(user),
      viewer: { uid: viewerUid, manages: user.viewer_manages === true },
    })),
  }));
}
