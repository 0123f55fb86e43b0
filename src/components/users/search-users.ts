// GET /v1/users/search and the searchUsers field: someone to write to, by tag prefix or by a word of
// the display name. Any signed-in caller may search, as any may look a tag up (GET
// /v1/users/by-tag): the answer is the same public UserOutput, never contacts, scopes or keys, and a
// bot's context origin only to the bot and its managers (judged in the search's own statement).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { allWordPrefixes } from '../search/lucene-query.js';
import { toUserOutput } from './user-record.js';
import { searchUsers as findUsers } from './users-repository.js';
import type { UserOutput, UserSearchQuery } from './users.schemas.js';

/**
 * Display-name hits the full-text index hands over before they are ordered by name. It bounds the
 * work of a one-letter search on a large instance; a prefix matching more names than this answers
 * the first names among those the index picked, and a longer text narrows it.
 */
export const NAME_CANDIDATES = 200;

export async function searchUsers(
  ctx: AppContext,
  caller: Caller,
  query: UserSearchQuery,
): Promise<{ users: UserOutput[] }> {
  const users = await findUsers(ctx.db, caller.uid, {
    // Tags are stored folded by toLower (create-user.cypher); tags are ASCII, where both agree.
    prefix: query.q.toLowerCase(),
    lucene: allWordPrefixes(query.q),
    limit: query.limit,
    candidates: NAME_CANDIDATES,
  });
  return { users: users.map(({ user, viewer }) => toUserOutput(user, viewer)) };
}
