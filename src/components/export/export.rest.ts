// /v1 export routes:
//   GET /v1/messages/timeline/export   every message you may see since a cutoff, as JSON bundles (parts)
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { exportTimeline } from './export-timeline.js';
import {
  EXPORT_MAX_CONTENT_CHARS,
  EXPORT_MAX_DAYS,
  EXPORT_MAX_MESSAGES,
  EXPORT_MAX_SKIP,
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
      `${EXPORT_MAX_MESSAGES} messages whose contents total at most ${EXPORT_MAX_CONTENT_CHARS} characters ` +
      '(its first message always), the newest; `truncated` is true when more qualified, and `next_skip` is ' +
      'then the `skip` that exports the next part (same `days` and `channel_id`; messages created in ' +
      'between shift the parts, so a message may come twice: de-duplicate by id). ' +
      `\`skip\` is 0–${EXPORT_MAX_SKIP}. Needs \`messages.read\`.`,
    auth: 'required',
    query: TimelineExportQuery,
    response: TimelineExport,
    errors: {
      403: 'messages.read missing, or you are not a member of channel_id.',
      404: 'channel_id names no channel.',
      422: `days outside 1–${EXPORT_MAX_DAYS}, skip outside 0–${EXPORT_MAX_SKIP}, or a malformed channel_id.`,
    },
    handler: ({ caller, query }) => exportTimeline(ctx, caller, query),
  });
}
