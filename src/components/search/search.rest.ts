// /v1 search routes:
//   GET /v1/messages/search                              visible messages by content words and/or tags, best first
//   GET /v1/messages/similar/:message_id                 visible messages most like a message (n-gram overlap)
//   GET /v1/messages/search/similar/:message_id          the same, under the search prefix
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { MessageIdParam, PaginatedMessages } from '../messages/messages.schemas.js';
import {
  SIMILAR_CANDIDATE_CHARS,
  SIMILAR_CANDIDATE_TOKENS,
  SIMILAR_CANDIDATES,
  SIMILAR_HITS,
  SIMILAR_QUERY_TOKENS,
  SIMILAR_SOURCE_TOKENS,
  findSimilarMessages,
} from './find-similar-messages.js';
import { searchMessages } from './search-messages.js';
import { SEARCH_NEEDS, SearchQuery, SimilarMessages, SimilarQuery } from './search.schemas.js';
import { SIMILARITY_FORMULA } from './similarity.js';

const TAG = 'search';

const SIMILAR_DESCRIPTION =
  "The messages you may see whose content is most like this message's, best first, as " +
  '`[{message, score}]`. Ranking by token and n-gram overlap: ' +
  SIMILARITY_FORMULA +
  ' For example, source "the cat sat" and candidate "the cat sat on the cat" with max_n 3 score ' +
  '1·3 + 4·2 + 9·1 = 20. Shared consecutive words weigh quadratically in their number, and an n-gram ' +
  'repeated in both messages counts as often as both repeat it. Candidates are not every message: ' +
  `the full-text index is asked for messages sharing a token with the source (its first ` +
  `${SIMILAR_QUERY_TOKENS} distinct tokens and whitespace-separated pieces, any of them), and of its ${SIMILAR_HITS} best hits the ` +
  `${SIMILAR_CANDIDATES} best ones you may see are scored exactly. Scoring is bounded: the source ` +
  `counts with its first ${SIMILAR_SOURCE_TOKENS} tokens, and each candidate with its first ` +
  `${SIMILAR_CANDIDATE_TOKENS} tokens within its first ${SIMILAR_CANDIDATE_CHARS} characters (text ` +
  'beyond does not count), so a call costs at most about ' +
  `${SIMILAR_CANDIDATES} × ${SIMILAR_CANDIDATE_TOKENS} × max_n n-gram look-ups. The source itself and messages ` +
  'scoring 0 are left out; equal scores are ordered newest first. A source without any token has no ' +
  'similar messages. Needs `messages.read`.';

export function mountSearchRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/messages/search',
    tag: TAG,
    summary: 'Search messages',
    description:
      'Messages you may see that match a content query (`q`, alias `query`), tags (`tags` with ' +
      `\`match=any|all\`), or both (both must hold). ${SEARCH_NEEDS} ` +
      'Content: the text is taken as plain words, never as ' +
      'Lucene syntax (operators, quotes, brackets, wildcards have no effect): each whitespace-separated ' +
      'piece must occur in the content, split into words the way the content is (Unicode word ' +
      'boundaries, compared lower-case, no stemming; a piece of several words must occur as those ' +
      'consecutive words, e.g. `naïve-ish`), a piece without any word is ignored, and a query without ' +
      'any word matches ' +
      'nothing. Results are ordered by how many times the words of the query occur in the message ' +
      '(lower-cased, counted as substrings of the content), then newest first; the order depends only on ' +
      'the matching messages you may see, never on statistics of other messages. Tags are ' +
      'matched exactly (a full-text index keeps each tag as one term). Tags only: ' +
      'ordered by how many of the given tags a message carries, then newest first. ' +
      '`scope` is deprecated: accepted and ignored. No ' +
      'authentication needed: anonymous callers search public messages only; a signed-in caller needs ' +
      '`messages.read` and searches every message they may see. Paginated (default limit 15).',
    auth: 'optional',
    cacheable: true,
    query: SearchQuery,
    response: PaginatedMessages,
    errors: {
      403: 'Signed in without messages.read.',
      422: 'Neither a content query nor tags, an invalid tag, or skip/limit out of range.',
    },
    handler: ({ caller, query }) => searchMessages(ctx, caller, query),
  });

  for (const path of ['/v1/messages/similar/:message_id', '/v1/messages/search/similar/:message_id']) {
    routes.add({
      method: 'get',
      path,
      tag: TAG,
      summary: 'Similar messages',
      description: SIMILAR_DESCRIPTION,
      auth: 'required',
      params: MessageIdParam,
      query: SimilarQuery,
      response: SimilarMessages,
      errors: {
        403: 'messages.read missing.',
        404: 'The message is not found, or not visible to you (the same answer).',
        422: 'limit outside 1–50, or max_n outside 1–10.',
      },
      handler: ({ caller, params, query }) => findSimilarMessages(ctx, caller, params.message_id, query),
    });
  }
}
