// GET /v1/messages/similar/:message_id: the visible messages whose content is most like the
// source's, by the n-gram overlap score of similarity.ts. Candidates come from the full-text index
// (messages sharing at least one token with the source), never from the whole store; the exact
// score is computed here for at most SIMILAR_CANDIDATES of them.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import { assertVisibleMessage, viewerOf } from '../messages/visibility-policy.js';
import { anyTerms, chunksOf } from './lucene-query.js';
import { similarCandidates } from './search-repository.js';
import type { SimilarMessage, SimilarQuery } from './search.schemas.js';
import { ngramProfile, similarityScore, tokenize } from './similarity.js';

/** Visible candidates scored exactly. */
export const SIMILAR_CANDIDATES = 200;
/** Full-text hits looked at (visible or not) to find them. */
export const SIMILAR_HITS = 2000;
/**
 * Distinct source tokens, and as many distinct whitespace pieces, put in the full-text query
 * (Lucene allows 1024 clauses).
 */
export const SIMILAR_QUERY_TOKENS = 256;

export async function findSimilarMessages(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  query: SimilarQuery,
): Promise<SimilarMessage[]> {
  assertScope(caller, 'messages.read');
  const source = await assertVisibleMessage(ctx, caller, messageId);
  const sourceTokens = tokenize(source.content);
  // Without a token every score is 0.
  if (sourceTokens.length === 0) return [];
  // The source's tokens, and its whitespace pieces as the index's analyzer splits them (so that
  // "don't" also finds "don't", which the analyzer keeps whole), any of them.
  const lucene = anyTerms([
    ...[...new Set(sourceTokens)].slice(0, SIMILAR_QUERY_TOKENS),
    ...chunksOf(source.content).slice(0, SIMILAR_QUERY_TOKENS),
  ]);
  if (lucene === null) return [];

  const viewer = viewerOf(caller);
  const candidates = await similarCandidates(ctx.db, viewer.uid, {
    sourceId: source.id,
    lucene,
    hits: SIMILAR_HITS,
    cap: SIMILAR_CANDIDATES,
  });
  const profile = ngramProfile(sourceTokens, query.max_n);
  const ranked = candidates
    .map((candidate) => ({ ...candidate, score: similarityScore(profile, tokenize(candidate.content)) }))
    .filter((candidate) => candidate.score > 0)
    // Best first; equal scores newest first, then by id so the order is stable.
    .sort(
      (a, b) =>
        b.score - a.score ||
        (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0) ||
        (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
    )
    .slice(0, query.limit);

  const messages = await hydrateMessages(
    ctx.db,
    viewer,
    ranked.map((candidate) => candidate.id),
    ctx.config.publicUrl,
  );
  const scores = new Map(ranked.map((candidate) => [candidate.id, candidate.score]));
  return messages.map((message) => ({ message, score: scores.get(message.id) ?? 0 }));
}
