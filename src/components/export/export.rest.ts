// /v1 export routes:
//   GET /v1/messages/timeline/export   every message you may see since a cutoff, as one JSON bundle
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { exportTimeline } from './export-timeline.js';
import {
  EXPORT_MAX_DAYS,
  EXPORT_MAX_MESSAGES,
  TimelineExport,
  TimelineExportQuery,
} from './export.schemas.js';

export function mountExportRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/messages/timeline/export',
    tag: 'views',
    summary: 'Export the timeline',
    description:
      'Every message you may see (the timeline: messages you wrote, received as CC or BCC, in a channel ' +
      'you belong to, or public) created at or after a cutoff, as one bundle ' +
      '`{exported_at, cutoff, days, channel_id, count, truncated, messages}`, messages newest first ' +
      '(ties by id). The cutoff is inclusive. Without `days` it is yesterday 16:00 in America/New_York ' +
      '(yesterday is the New York calendar day before today there; 16:00 is wall-clock time, so ' +
      'daylight saving changes move it in UTC: 21:00Z in winter, 20:00Z in summer). With `days` ' +
      `(1–${EXPORT_MAX_DAYS}) it is exactly \`days\` × 24 hours before now. With \`channel_id\`, only ` +
      'messages included in that channel (you must be a member). A bundle holds at most ' +
      `${EXPORT_MAX_MESSAGES} messages, the newest; \`truncated\` is true when more qualified (export ` +
      'again with a shorter window, or a channel). Needs `messages.read`.',
    auth: 'required',
    query: TimelineExportQuery,
    response: TimelineExport,
    errors: {
      403: 'messages.read missing, or you are not a member of channel_id.',
      404: 'channel_id names no channel.',
      422: `days outside 1–${EXPORT_MAX_DAYS}, or a malformed channel_id.`,
    },
    handler: ({ caller, query }) => exportTimeline(ctx, caller, query),
  });
}
