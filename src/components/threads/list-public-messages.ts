// GET /v1/messages/public: the newest public message of each thread that has one, newest first.
// Open to anonymous callers. A signed-in caller needs messages.read, as everywhere else (search, and
// GraphQL's publicMessages): a credential without it reads no message through any route, and a client
// that wants the anonymous view sends no credential. With it, the caller sees the entries as they see
// them (their BCC entries, channels, saved state).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { publicPage } from './threads-repository.js';
import type { PublicQuery } from './threads.schemas.js';
import { viewPage } from './view-page.js';

export async function listPublicMessages(
  ctx: AppContext,
  caller: Caller | null,
  query: PublicQuery,
): Promise<PaginatedMessages> {
  if (caller) assertScope(caller, 'messages.read');
  const viewer = { uid: caller?.uid ?? null };
  return viewPage(ctx, viewer, publicPage(viewer.uid, query), query);
}
