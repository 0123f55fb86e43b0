// /v1 admin metrics routes:
//   GET /v1/admin/metrics/messages-per-day   message counts per UTC day and author (scope `admin`)
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { DayCounts, METRICS_MAX_LIMIT, MessagesPerDayQuery } from './metrics.schemas.js';
import { readMessagesPerDay } from './read-message-metrics.js';

export function mountMetricsRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/admin/metrics/messages-per-day',
    tag: 'admin',
    summary: 'Messages per day and author',
    description:
      'How many messages each author created per calendar day, days taken in UTC: an array of ' +
      '`{date: "YYYY-MM-DD", author: {uid, user_tag}, count}` ordered by date (oldest first), then ' +
      'count (highest first), then author uid. `from_date` and `to_date` (YYYY-MM-DD, both inclusive, ' +
      'both optional: an absent end leaves the range open) bound the days; a malformed or impossible ' +
      'date, or `from_date` after `to_date`, is 422. Only pairs with at least one message appear. ' +
      `\`limit\` (1–${METRICS_MAX_LIMIT}, default 1000) caps the rows, keeping the earliest days. ` +
      'Counts cover every message in the store, whoever may see it. Needs the `admin` scope.',
    auth: 'required',
    query: MessagesPerDayQuery,
    response: DayCounts,
    errors: {
      403: 'The admin scope is missing (insufficient_scope).',
      422: `A malformed date, from_date after to_date, or limit outside 1–${METRICS_MAX_LIMIT}.`,
    },
    handler: ({ caller, query }) => readMessagesPerDay(ctx, caller, query),
  });
}
