// The visibility policy in TypeScript: the rule itself is the Cypher fragment
// cypher/fragments/can-see.cypher, which every query embeds; this module turns "not visible" into
// the one 404 that a missing message also gets, and decides "author or manager" rights.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, messageNotFound } from '../../platform/errors.js';
import { hydrateMessages } from './messages-repository.js';
import type { MessageOutput } from './messages.schemas.js';

export function viewerOf(caller: Caller | null): { uid: string | null } {
  return { uid: caller?.uid ?? null };
}

/** The message as the caller sees it, or the same 404 whether it is missing or invisible. */
export async function assertVisibleMessage(
  ctx: AppContext,
  caller: Caller | null,
  messageId: string,
): Promise<MessageOutput> {
  const [message] = await hydrateMessages(ctx.db, viewerOf(caller), [messageId], ctx.config.publicUrl);
  if (!message) throw messageNotFound();
  return message;
}

export interface Authorship {
  author_uid: string;
  manager_uids: string[];
}

/** The author and the author's managers hold "author or manager" rights (no admin override). */
export function isAuthorOrManager(authorship: Authorship, caller: Caller): boolean {
  return authorship.author_uid === caller.uid || authorship.manager_uids.includes(caller.uid);
}

export function notAuthorError(): AppError {
  return new AppError('not_author', 'Only the author or its manager may do this.');
}

export function assertAuthorOrManager(authorship: Authorship, caller: Caller): void {
  if (!isAuthorOrManager(authorship, caller)) throw notAuthorError();
}
