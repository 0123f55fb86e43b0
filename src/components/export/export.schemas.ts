// Shapes of the timeline export (they validate REST queries and GraphQL arguments alike, and feed
// the OpenAPI document).
import { z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';
import { ChannelId } from '../channels/channels.schemas.js';
import { MessageOutput } from '../messages/messages.schemas.js';

/** The most messages one bundle carries; beyond it `truncated` is true and `next_skip` continues. */
export const EXPORT_MAX_MESSAGES = 10_000;
/**
 * The most content characters one bundle carries (its first message always comes): contents of up
 * to 65,536 characters times the message cap made bundles of gigabytes, past V8's longest string.
 */
export const EXPORT_MAX_CONTENT_CHARS = 4_000_000;
/** The deepest `skip` into an export (each part re-reads the messages before it). */
export const EXPORT_MAX_SKIP = 100_000;
export const EXPORT_MAX_DAYS = 3650;

export const TimelineExportQuery = z.object({
  days: queryInteger({ min: 1, max: EXPORT_MAX_DAYS })
    .optional()
    .openapi({
      description: `1–${EXPORT_MAX_DAYS}: export the messages of the last \`days\` × 24 hours. Absent: since yesterday 16:00 America/New_York.`,
    }),
  channel_id: ChannelId.optional().openapi({
    description:
      'Only messages included in this channel. You must be a member (404 channel_not_found, 403 not_channel_member).',
  }),
  skip: queryInteger({ min: 0, max: EXPORT_MAX_SKIP })
    .default(0)
    .openapi({
      description: `0–${EXPORT_MAX_SKIP}: leave out the newest \`skip\` messages; pass a bundle's \`next_skip\` to get the next part.`,
    }),
});
export type TimelineExportQuery = z.infer<typeof TimelineExportQuery>;

export const TimelineExport = z
  .object({
    exported_at: z.string().openapi({ description: 'When the bundle was made (UTC).' }),
    cutoff: z.string().openapi({ description: 'The earliest creation time included (UTC, inclusive).' }),
    days: z.number().int().nullable().openapi({ description: 'The `days` asked for, or null.' }),
    channel_id: z.string().nullable(),
    count: z.number().int().openapi({ description: 'How many messages the bundle holds.' }),
    skip: z.number().int().openapi({ description: 'The `skip` asked for.' }),
    truncated: z.boolean().openapi({
      description:
        `true when more messages qualified than this bundle holds: a bundle holds at most ${EXPORT_MAX_MESSAGES} ` +
        `messages whose contents total at most ${EXPORT_MAX_CONTENT_CHARS} characters (its first message always), ` +
        'the newest first.',
    }),
    next_skip: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'When truncated, the `skip` that exports the next part; null otherwise.' }),
    messages: z.array(MessageOutput).openapi({ description: 'Newest first (ties by id, descending).' }),
  })
  .openapi('TimelineExport');
export type TimelineExport = z.infer<typeof TimelineExport>;
