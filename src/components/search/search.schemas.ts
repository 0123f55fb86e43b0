// Shapes of search and similar-messages: they validate REST queries and GraphQL arguments alike,
// and feed the OpenAPI document.
import { z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';
import { fieldsQuery } from '../messages/message-fields.js';
import { MessageOutput, TagList, pageQuery } from '../messages/messages.schemas.js';

export const MAX_QUERY_CHARS = 1000;

const Text = z.string().max(MAX_QUERY_CHARS);

/**
 * The rule of the superRefine below, which JSON Schema cannot state across query parameters: the
 * document says it on each of them and on the operation (search.rest.ts).
 */
export const SEARCH_NEEDS =
  'Give at least one of `q`, `query` (not blank) or `tags` (at least one tag); with none of them the answer is 422.';

/**
 * Tags as `a,b,c`, as a repeated parameter, or (GraphQL) as a list; each piece is trimmed, empty
 * pieces are dropped, and every tag is validated and lower-cased like a message's tags.
 */
const SearchTags = z
  .union([z.string().max(4000), z.array(z.string().max(4000)).max(32)])
  .transform((value) =>
    (Array.isArray(value) ? value : [value])
      .flatMap((piece) => piece.split(','))
      .map((tag) => tag.trim())
      .filter((tag) => tag.length > 0),
  )
  .pipe(TagList)
  .openapi({
    type: 'string',
    description:
      'Comma-separated tags (1–64 of A-Z a-z 0-9 _ . : / -, compared lower-case; at most 32). ' +
      `See \`match\`. ${SEARCH_NEEDS}`,
    example: 'release,urgent',
  });

/** The content query of a search: `q`, else `query`; blank counts as absent. */
export function searchTextOf(query: { q?: string | undefined; query?: string | undefined }): string | null {
  for (const text of [query.q, query.query]) if (text !== undefined && text.trim().length > 0) return text;
  return null;
}

export const SearchQuery = z
  .object({
    q: Text.optional().openapi({
      description:
        'Words to find in the content, taken as plain words (Lucene syntax in it has no effect): every ' +
        `whitespace-separated piece must occur. At most 1000 characters. ${SEARCH_NEEDS}`,
    }),
    query: Text.optional().openapi({
      description: `Alias of \`q\`; \`q\` wins when both are given. ${SEARCH_NEEDS}`,
    }),
    tags: SearchTags.optional(),
    match: z.enum(['any', 'all']).default('any').openapi({
      description:
        '`any`: a message carrying at least one of `tags` matches; `all`: it must carry every one.',
    }),
    scope: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: 'Deprecated: accepted and ignored.', deprecated: true }),
    ...pageQuery(15),
    fields: fieldsQuery(),
  })
  .superRefine((value, issues) => {
    if (searchTextOf(value) === null && (value.tags?.length ?? 0) === 0) {
      issues.addIssue({
        code: 'custom',
        path: ['q'],
        message: 'give a content query (q or query) or tags, or both',
      });
    }
  });
export type SearchQuery = z.infer<typeof SearchQuery>;

export const SimilarQuery = z.object({
  limit: queryInteger({ min: 1, max: 50 })
    .default(5)
    .openapi({ description: 'How many similar messages to answer, 1–50.' }),
  max_n: queryInteger({ min: 1, max: 10 })
    .default(3)
    .openapi({ description: 'Longest n-gram (consecutive tokens) compared, 1–10.' }),
});
export type SimilarQuery = z.infer<typeof SimilarQuery>;

export const SimilarMessage = z
  .object({
    message: MessageOutput,
    score: z.number().openapi({ description: 'The similarity score (see the route description); > 0.' }),
  })
  .openapi('SimilarMessageResponse');
export type SimilarMessage = z.infer<typeof SimilarMessage>;

export const SimilarMessages = z.array(SimilarMessage);
