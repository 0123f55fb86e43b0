// Shapes of stitch (link) requests and answers (validation and OpenAPI).
import { z } from '../../platform/openapi.js';
import { MessageId, QueryBoolean, pageQuery } from '../messages/messages.schemas.js';

export const LinkParams = z.object({ message_id_from: MessageId, message_id_to: MessageId });
export type LinkParams = z.infer<typeof LinkParams>;

export const LINKS_PAGE_DEFAULT = 15;

export const LinkListQuery = z.object({
  ...pageQuery(LINKS_PAGE_DEFAULT),
  show_all_links: QueryBoolean.default(false).openapi({
    type: 'boolean',
    default: false,
    description: 'false (default): only stitches you drew; true: stitches drawn by anyone.',
  }),
});
export type LinkListQuery = z.infer<typeof LinkListQuery>;

export const LinkResponse = z
  .object({
    from_id: z.string(),
    to_id: z.string(),
    stitched_by: z.string().openapi({ description: 'uid of whoever drew the stitch.' }),
    created_at: z.string().openapi({ description: 'When the stitch was first drawn.' }),
    linked: z
      .boolean()
      .openapi({ description: 'true after POST (the stitch exists); false after DELETE (it was removed).' }),
  })
  .openapi('LinkResponse', {
    description:
      "One stitch from `from_id` to `to_id`. POST answers the caller's stitch (the first one when drawn twice); " +
      "DELETE answers the stitch it removed (the caller's own when it had one).",
  });
export type LinkResponse = z.infer<typeof LinkResponse>;
