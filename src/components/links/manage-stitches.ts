// Drawing and removing stitches (link edges between messages). A stitch belongs to whoever drew it:
// one per (from, to, stitcher), so several people may stitch the same pair, and each removes only
// their own, except that the FROM message's author (or the author's manager) may remove any stitch
// out of it, as they curate where their message leads.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, messageNotFound } from '../../platform/errors.js';
import { isAuthorOrManager } from '../messages/visibility-policy.js';
import { createStitch, deleteStitches, findStitchEnds } from './links-repository.js';
import type { LinkResponse } from './links.schemas.js';

function assertDistinctEnds(fromId: string, toId: string): void {
  if (fromId === toId) throw new AppError('invalid_link', 'A message cannot be stitched to itself.');
}

/** POST /v1/links/messages/{from}/{to}: idempotent; both ends must be visible to the caller. */
export async function stitchMessages(
  ctx: AppContext,
  caller: Caller,
  fromId: string,
  toId: string,
): Promise<LinkResponse> {
  assertScope(caller, 'messages.write');
  assertDistinctEnds(fromId, toId);
  const stitch = await createStitch(ctx.db, caller.uid, fromId, toId);
  if (!stitch) throw messageNotFound();
  return { from_id: fromId, to_id: toId, ...stitch, linked: true };
}

/** DELETE /v1/links/messages/{from}/{to}: removes the caller's stitch (any stitch, for the FROM author). */
export async function unstitchMessages(
  ctx: AppContext,
  caller: Caller,
  fromId: string,
  toId: string,
): Promise<LinkResponse> {
  assertScope(caller, 'messages.write');
  assertDistinctEnds(fromId, toId);
  return ctx.db.inWrite(async (tx) => {
    const ends = await findStitchEnds(tx, caller.uid, fromId, toId);
    if (!ends) throw messageNotFound();
    const [removed] = await deleteStitches(tx, caller.uid, fromId, toId, isAuthorOrManager(ends, caller));
    if (!removed) throw new AppError('link_not_found', 'You have no stitch between these messages.');
    return { from_id: fromId, to_id: toId, ...removed, linked: false };
  });
}
