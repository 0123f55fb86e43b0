// GET /v1/messages/search: visible messages matching words of the content and/or tags, best first.
// Ranking is computed on the visible hits alone (never Lucene's corpus-wide score), so that it
// cannot reveal words of messages the caller may not see.
// Open to anonymous callers (public messages only); a signed-in caller needs messages.read and
// searches everything they may see. Visibility is applied inside the queries.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import type { PaginatedMessages } from '../messages/messages.schemas.js';
import { viewerOf } from '../messages/visibility-policy.js';
import { messagePage } from '../threads/view-page.js';
import { allTerms, anyTerms, chunksOf } from './lucene-query.js';
import { contentSearchIds, tagSearchIds } from './search-repository.js';
import { searchTextOf, type SearchQuery } from './search.schemas.js';
import { tokenize } from './similarity.js';

export async function searchMessages(
  ctx: AppContext,
  caller: Caller | null,
  query: SearchQuery,
): Promise<PaginatedMessages> {
  if (caller) assertScope(caller, 'messages.read');
  const viewer = viewerOf(caller);
  const window = { skip: query.skip, limit: query.limit };
  const tags = query.tags ?? [];
  const text = searchTextOf(query);

  let ids: string[];
  if (text !== null) {
    // Every whitespace-separated piece of the text is a required phrase, analysed like the content;
    // a piece without any word (only punctuation) drops out, and text without any word matches
    // nothing rather than everything.
    const lucene = allTerms(chunksOf(text));
    ids =
      lucene === null
        ? []
        : await contentSearchIds(
            ctx.db,
            viewer.uid,
            { lucene, words: [...new Set(tokenize(text))], tags, match: query.match },
            window,
          );
  } else {
    const lucene = (query.match === 'all' ? allTerms : anyTerms)(tags);
    ids =
      lucene === null
        ? []
        : await tagSearchIds(ctx.db, viewer.uid, { lucene, tags, match: query.match }, window);
  }
  return messagePage(ctx, viewer, ids, { ...window, fields: query.fields });
}
