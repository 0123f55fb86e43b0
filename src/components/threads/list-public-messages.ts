// GET /v1/messages/public: the newest public message of each thread that has one, newest first.
// Open to anyone; a signed-in caller holding messages.read sees the entries as they see them
// (their BCC entries, channels, saved state), anyone else sees them as an anonymous reader.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { publicIds } from './threads-repository.js';
import type { PublicQuery } from './threads.schemas.js';
import { messagePage } from './view-page.js';

export async function listPublicMessages(
  ctx: AppContext,
  caller: Caller | null,
  query: PublicQuery,
): Promise<PaginatedMessages> {
  const viewer = { uid: caller?.permissions.includes('messages.read') ? caller.uid : null };
  const ids = await publicIds(ctx.db, viewer.uid, query);
  return messagePage(ctx, viewer, ids, query);
}
