// Shapes of the timeline export (they validate REST queries and GraphQL arguments alike, and feed
// the OpenAPI document).
import { z } from '../../platform/openapi.js';
import { queryInteger } from '../../platform/query-integer.js';
import { ChannelId } from '../channels/channels.schemas.js';
import { MessageOutput } from '../messages/messages.schemas.js';

/** The most messages one export carries; beyond it `truncated` is true and the oldest are left out. */
export const EXPORT_MAX_MESSAGES = 10_000;
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
});
export type TimelineExportQuery = z.infer<typeof TimelineExportQuery>;

export const TimelineExport = z
  .object({
    exported_at: z.string().openapi({ description: 'When the bundle was made (UTC).' }),
    cutoff: z.string().openapi({ description: 'The earliest creation time included (UTC, inclusive).' }),
    days: z.number().int().nullable().openapi({ description: 'The `days` asked for, or null.' }),
    channel_id: z.string().nullable(),
    count: z.number().int().openapi({ description: 'How many messages the bundle holds.' }),
    truncated: z.boolean().openapi({
      description: `true when more than ${EXPORT_MAX_MESSAGES} messages qualified: the newest ${EXPORT_MAX_MESSAGES} are given.`,
    }),
    messages: z.array(MessageOutput).openapi({ description: 'Newest first (ties by id, descending).' }),
  })
  .openapi('TimelineExport');
export type TimelineExport = z.infer<typeof TimelineExport>;
