// PUT and DELETE /v1/messages/{message_id}/reactions/{reaction}: anyone who can see a message may
// add or remove their own emoji reactions on it (404 otherwise, as for a missing message). Adding
// is idempotent (the first reaction time stays) and removing one never held answers the same state.
// Each change runs in one transaction under the message's lock, and only a real change records
// `message.updated` with the change `reactions`, so parallel identical adds make one edge and one
// event.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import type { Tx } from '../../platform/neo4j/database.js';
import { announceEvents, recordEvents, recordMessageChange, userEvents } from '../event-log/record-events.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import { assertRoomForReaction } from './reaction-rules.js';
import {
  addReactionEdge,
  lockReactions,
  readReactionRoom,
  removeReactionEdge,
  type ReactionTarget,
} from './reactions-repository.js';
import type { ReactionState } from './reactions.schemas.js';

export async function addReaction(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  reaction: string,
): Promise<ReactionState> {
  assertScope(caller, 'messages.write');
  return changeReaction(ctx, caller, messageId, reaction, async (tx) => {
    const room = await readReactionRoom(tx, caller.uid, messageId);
    if (room.mine.includes(reaction)) return false;
    assertRoomForReaction(room, reaction);
    await addReactionEdge(tx, caller.uid, messageId, reaction);
    return true;
  });
}

export async function removeReaction(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  reaction: string,
): Promise<ReactionState> {
  assertScope(caller, 'messages.write');
  return changeReaction(ctx, caller, messageId, reaction, (tx) =>
    removeReactionEdge(tx, caller.uid, messageId, reaction),
  );
}

/** Runs `change` under the message's lock; it answers whether it changed anything. */
async function changeReaction(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  reaction: string,
  change: (tx: Tx) => Promise<boolean>,
): Promise<ReactionState> {
  const { state, changed } = await ctx.db.inWrite(async (tx) => {
    const target = await lockReactions(tx, caller.uid, messageId);
    if (!target) throw messageNotFound();
    const changed = await change(tx);
    if (changed) await recordReactionChange(tx, caller.uid, target);
    const [message] = await hydrateMessages(tx, { uid: caller.uid }, [messageId], ctx.config.publicUrl);
    if (!message) throw messageNotFound();
    const state: ReactionState = {
      message_id: messageId,
      reaction,
      me: message.reactions.some((shown) => shown.reaction === reaction && shown.me),
      reactions: message.reactions,
    };
    return { state, changed };
  });
  if (changed) await announceEvents(ctx);
  return state;
}

/**
 * Who hears of a reaction change: those the reaction is shown to (cypher/fragments/reaction-shown.cypher).
 * Usually the message's whole audience, as for any edit; a BCC recipient's reaction only its author
 * and the adder of that BCC entry, so that nobody else learns of the entry from an event.
 */
async function recordReactionChange(tx: Tx, actorUid: string, target: ReactionTarget): Promise<void> {
  if (target.bcc_added_by === null) {
    await recordMessageChange(tx, actorUid, 'message.updated', [target.id], ['reactions']);
    return;
  }
  const told = [target.author_uid, target.bcc_added_by].map((uid) => ({ uid, message_id: target.id }));
  await recordEvents(tx, actorUid, userEvents('message.updated', told, actorUid, ['reactions']));
}
