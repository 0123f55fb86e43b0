// GET /v1/messages/similar/:message_id: the visible messages whose content is most like the
// source's, by the n-gram overlap score of similarity.ts. Candidates come from the full-text index
// (messages sharing at least one token with the source), never from the whole store; the exact
// score is computed here for at most SIMILAR_CANDIDATES of them.
// The scoring runs on the event loop, so its work is bounded (finding #1 of the 2026-11-23 security
// review: uncapped, one call stalled every request for seconds): the source counts with its first
// SIMILAR_SOURCE_TOKENS tokens, each candidate with its first SIMILAR_CANDIDATE_TOKENS tokens of
// its first SIMILAR_CANDIDATE_CHARS characters, and the loop yields to other requests every
// SIMILAR_YIELD_EVERY candidates.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import { assertVisibleMessage, viewerOf } from '../messages/visibility-policy.js';
import { anyTerms, chunksOf } from './lucene-query.js';
import { similarCandidates, type Candidate } from './search-repository.js';
import type { SimilarMessage, SimilarQuery } from './search.schemas.js';
import { ngramProfile, similarityScore, tokenize } from './similarity.js';

/** Visible candidates scored exactly. */
export const SIMILAR_CANDIDATES = 100;
/** Leading tokens of the source whose n-grams are compared. */
export const SIMILAR_SOURCE_TOKENS = 1000;
/** Leading characters of a candidate read from the store and tokenized. */
export const SIMILAR_CANDIDATE_CHARS = 8000;
/** Leading tokens (of those characters) of a candidate that are scored. */
export const SIMILAR_CANDIDATE_TOKENS = 1000;
/** Candidates scored between two yields to the event loop. */
const SIMILAR_YIELD_EVERY = 10;
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
    contentChars: SIMILAR_CANDIDATE_CHARS,
  });
  const profile = ngramProfile(sourceTokens.slice(0, SIMILAR_SOURCE_TOKENS), query.max_n);
  const scored: (Candidate & { score: number })[] = [];
  for (const [index, candidate] of candidates.entries()) {
    if (index > 0 && index % SIMILAR_YIELD_EVERY === 0) await yieldToEventLoop();
    // The query returned only the first SIMILAR_CANDIDATE_CHARS characters.
    const tokens = tokenize(candidate.content).slice(0, SIMILAR_CANDIDATE_TOKENS);
    scored.push({ ...candidate, score: similarityScore(profile, tokens) });
  }
  const ranked = scored
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
